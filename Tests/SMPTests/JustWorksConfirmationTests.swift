import Testing
@testable import SMP

/// `SMPConfiguration.confirmsJustWorks`: the user accepts a Secure Connections Just Works
/// pairing before the DHKey checks, on either side; refusing fails it with Numeric
/// Comparison Failed and nothing encrypts; without the option nobody is asked.
struct JustWorksConfirmationTests {
    static func asking() -> SMPConfiguration {
        var c = SMPConfiguration()
        c.confirmsJustWorks = true
        return c
    }

    @Test(arguments: [PairingHarness.Side.central, .peripheral])
    func acceptedPairs(_ side: PairingHarness.Side) {
        var h = PairingHarness(central: side == .central ? Self.asking() : SMPConfiguration(),
                               peripheral: side == .peripheral ? Self.asking() : SMPConfiguration())
        h.pair()
        #expect(h.events[side]?.contains(.confirmJustWorks) == true)
        #expect(h.result(.central)?.associationModel == .justWorks)
        #expect(h.result(.peripheral)?.securityLevel == .unauthenticated)
    }

    @Test(arguments: [PairingHarness.Side.central, .peripheral])
    func refusedFails(_ side: PairingHarness.Side) {
        var h = PairingHarness(central: side == .central ? Self.asking() : SMPConfiguration(),
                               peripheral: side == .peripheral ? Self.asking() : SMPConfiguration())
        h.numericAnswer[side] = false
        h.pair()
        #expect(h.failure(side) == .local(.numericComparisonFailed))
        #expect(h.encryptions.isEmpty)
    }

    @Test func notAskedByDefault() {
        var h = PairingHarness(central: SMPConfiguration(), peripheral: SMPConfiguration())
        h.pair()
        #expect(!(h.events[.central] ?? []).contains(.confirmJustWorks))
        #expect(!(h.events[.peripheral] ?? []).contains(.confirmJustWorks))
        #expect(h.result(.central) != nil)
    }
}
