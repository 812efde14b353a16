import HCI
import Testing

/// ``HostConfiguration/prefersPublicAddress``: the controller's public address is our
/// identity when Read BD_ADDR gives one; the configured random address is the fallback.
@Suite("HCI host: own address")
struct HCIOwnAddressTests {
    static let random = BluetoothAddress(0xC0, 1, 2, 3, 4, 5)

    private func connect(_ controller: inout FakeController) -> UInt8? {
        controller.perform(.connect(peer: BluetoothAddress(0xF0, 5, 4, 3, 2, 1), peerAddressType: 1,
                                    parameters: ConnectionParameters(), timeout: .seconds(5)), id: 1)
        guard controller.lastOpcode == 0x200D, let command = controller.sent.last, command.count > 16 else { return nil }
        return command[16]
    }

    @Test("a controller with a public address: no LE Set Random Address, and we connect as public")
    func publicAddressWins() {
        var controller = FakeController(configuration: HostConfiguration(randomAddress: Self.random, prefersPublicAddress: true))
        controller.initialize(publicAddress: [0x66, 0x55, 0x44, 0x33, 0x22, 0x11])
        #expect(controller.host.isReady)
        #expect(!controller.sent.contains { $0.count > 2 && $0[1] == 0x05 && $0[2] == 0x20 }, "LE Set Random Address sent")
        #expect(controller.host.controller?.publicAddress == BluetoothAddress(0x11, 0x22, 0x33, 0x44, 0x55, 0x66))
        #expect(controller.host.controller?.randomAddress == nil)
        #expect(controller.host.ownAddressType == .public)
        #expect(connect(&controller) == 0x00, "own address type public")
    }

    @Test("a controller whose BD_ADDR is all zeros (emulated ones): the random address is used")
    func zeroPublicAddressFallsBackToRandom() {
        var controller = FakeController(configuration: HostConfiguration(randomAddress: Self.random, prefersPublicAddress: true))
        controller.initialize(publicAddress: [0, 0, 0, 0, 0, 0])
        #expect(controller.host.isReady)
        #expect(controller.sent.contains { $0.count == 10 && $0[1] == 0x05 && $0[2] == 0x20 && Array($0[4...]) == [5, 4, 3, 2, 1, 0xC0] })
        #expect(controller.host.controller?.randomAddress == Self.random)
        #expect(connect(&controller) == 0x01, "own address type random")
    }

    @Test("without the preference the configured random address is used even beside a public one")
    func randomWhenNotPreferred() {
        var controller = FakeController(configuration: HostConfiguration(randomAddress: Self.random))
        controller.initialize(publicAddress: [0x66, 0x55, 0x44, 0x33, 0x22, 0x11])
        #expect(controller.host.controller?.randomAddress == Self.random)
        #expect(connect(&controller) == 0x01)
    }
}
