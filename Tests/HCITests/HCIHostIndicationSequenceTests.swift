import HCI
import Testing

/// ATT's one indication at a time (Vol 3 Part F §3.4.7.2), as the host sees it: a peer's
/// second indication before our confirmation of the first left the host is a flood.
@Suite("HCI host: the peer's indications, one at a time")
struct HCIHostIndicationSequenceTests {
    static let indication: [UInt8] = [0x1D, 0x12, 0x00, 0x48]

    static func connected() -> FakeController {
        var controller = FakeController()
        controller.initialize()
        controller.receive(FakeController.connectionComplete(handle: 0x40))
        controller.receive(FakeController.connectionComplete(handle: 0x41))
        return controller
    }

    static func attributeData(_ controller: FakeController, _ handle: UInt16) -> [[UInt8]] {
        controller.delivered.compactMap { if case .attributeData(handle, let pdu) = $0 { pdu } else { nil } }
    }

    @Test("each confirmed before the next: every indication is delivered")
    func sequential() {
        var controller = Self.connected()
        for id in 1...3 {
            controller.receive(FakeController.acl(handle: 0x40, channel: 4, payload: Self.indication))
            controller.perform(.sendL2CAP(handle: 0x40, channel: .attribute, payload: [0x1E]), id: UInt64(id))
        }
        #expect(Self.attributeData(controller, 0x40).count == 3)
        #expect(!controller.delivered.contains(.indicationBeforeConfirmation(handle: 0x40)))
    }

    @Test("a second indication before the confirmation: the flood is reported, the link alone is ended")
    func flood() {
        var controller = Self.connected()
        controller.receive(FakeController.acl(handle: 0x40, channel: 4, payload: Self.indication))
        // Notifications and the other link are no part of it.
        controller.receive(FakeController.acl(handle: 0x40, channel: 4, payload: [0x1B, 0x12, 0x00, 1]))
        controller.receive(FakeController.acl(handle: 0x41, channel: 4, payload: Self.indication))
        controller.receive(FakeController.acl(handle: 0x40, channel: 4, payload: Self.indication))
        #expect(controller.delivered.contains(.indicationBeforeConfirmation(handle: 0x40)))
        #expect(!controller.delivered.contains(.indicationBeforeConfirmation(handle: 0x41)))
        // HCI Disconnect (0x0406) of 0x0040, Remote User Terminated Connection.
        #expect(controller.sent.last == [0x01, 0x06, 0x04, 3, 0x40, 0x00, 0x13])
        // Nothing more of the broken link's ATT is delivered; the other link's is.
        controller.receive(FakeController.acl(handle: 0x40, channel: 4, payload: [0x1B, 0x12, 0x00, 2]))
        controller.perform(.sendL2CAP(handle: 0x41, channel: .attribute, payload: [0x1E]), id: 1)
        controller.receive(FakeController.acl(handle: 0x41, channel: 4, payload: Self.indication))
        #expect(Self.attributeData(controller, 0x40) == [Self.indication, [0x1B, 0x12, 0x00, 1]])
        #expect(Self.attributeData(controller, 0x41) == [Self.indication, Self.indication])
        // The application's own disconnect completes with the host's.
        controller.perform(.disconnect(handle: 0x40, reason: 0x13), id: 2)
        controller.receive(FakeController.commandStatus(0x0406))
        controller.receive(FakeController.disconnectionComplete(handle: 0x40, reason: 0x16))
        #expect(controller.delivered.contains(.disconnected(handle: 0x40, reason: HCIStatus.connectionTerminatedByLocalHost)))
        #expect(controller.sent.filter { $0.starts(with: [0x01, 0x06, 0x04]) }.count == 1)
        if case .success(.disconnected(let reason))? = controller.completions[HostRequestID(2)] {
            #expect(reason == HCIStatus.connectionTerminatedByLocalHost)
        } else {
            Issue.record("disconnect request: \(String(describing: controller.completions[HostRequestID(2)]))")
        }
    }
}
