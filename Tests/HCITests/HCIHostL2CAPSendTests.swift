import Testing
@testable import HCI

/// `HCIHost.send`: the L2CAP send that nobody waits for, as an ATT bearer uses it.
@Suite("HCI host: sends without a completion")
struct HCIHostL2CAPSendTests {
    static func connectedController(queueLimit: Int = 4096) -> FakeController {
        var configuration = HostConfiguration(randomAddress: BluetoothAddress(0xC0, 1, 2, 3, 4, 5))
        configuration.maximumQueuedACLPackets = queueLimit
        var controller = FakeController(configuration: configuration, aclPackets: 1)
        controller.initialize()
        controller.receive(FakeController.connectionComplete(handle: 0x01))
        return controller
    }

    static func send(_ payload: [UInt8], on handle: UInt16, _ controller: inout FakeController) {
        controller.host.send(payload, on: handle, channel: .attribute, at: controller.now, into: &controller.out)
        controller.takeOut()
    }

    @Test("a send goes out as ACL and completes nothing")
    func sendsWithoutCompletion() {
        var controller = Self.connectedController()
        let completions = controller.completions.count
        let acl = controller.sent.filter { $0.first == 0x02 }.count
        Self.send([0x52, 1, 0, 9], on: 0x01, &controller)
        #expect(controller.completions.count == completions)
        #expect(controller.sent.filter { $0.first == 0x02 }.count == acl + 1)
        #expect(controller.host.warningCounts.total == 0)
    }

    @Test("past the link's bound a send is dropped with a counted warning, never silently")
    func overflowIsCounted() {
        var controller = Self.connectedController(queueLimit: 8)
        let completions = controller.completions.count
        for _ in 1...20 { Self.send([0x52, 1, 0, 9], on: 0x01, &controller) }
        // One packet in flight, eight waiting; the other eleven are dropped and counted.
        #expect(controller.host.queuedACLPacketCount(on: 0x01) == 8)
        #expect(controller.host.warningCounts[.l2capDropped] == 11)
        #expect(controller.completions.count == completions)
    }

    @Test("a link that is gone takes nothing: its owner learnt of the end from its events")
    func goneLinkTakesNothing() {
        var controller = Self.connectedController()
        let sent = controller.sent.count
        Self.send([0x52, 1, 0, 9], on: 0x02, &controller)
        #expect(controller.sent.count == sent)
        #expect(controller.host.warningCounts.total == 0)
    }
}
