import Testing
import BluetoothCore
@testable import SMP

/// `SecurityManager.prepareCrypto()` (run by the userland backend beside the controller's
/// initialisation) only sets libcrypto up: calling it again is harmless, and pairings after
/// it complete as before. Its speed is measured in attune-bench, not here.
@Suite struct PrepareCryptoTests {
    @Test("prepareCrypto, called twice, leaves Secure Connections pairing working")
    func pairingAfterPreparing() {
        SecurityManager.prepareCrypto()
        SecurityManager.prepareCrypto()
        var h = PairingHarness(central: PairingTests.centralConfig(.noInputNoOutput),
                               peripheral: PairingTests.peripheralConfig(.noInputNoOutput))
        h.pair()
        #expect(PairingTests.expectPaired(h, model: .justWorks, sc: true) != nil)
    }
}
