import HCI
import Testing

/// A requested disconnect drains the link first: the ACL we queued before it (the last
/// ATT response, an Error Response) reaches the peer, and only then does HCI Disconnect
/// go, so it cannot overtake that data. A controller that never completes the data
/// cannot hold the link: at the drain limit it goes anyway, and the loss is reported.
@Suite("HCI host: a disconnect drains the link's ACL first")
struct HCIHostDisconnectDrainTests {
    static let handle: UInt16 = 0x40
    /// HCI Disconnect (0x0406) of 0x0040, Remote User Terminated Connection.
    static let disconnect: [UInt8] = [0x01, 0x06, 0x04, 3, 0x40, 0x00, 0x13]

    /// A ready host whose controller has `buffers` ACL buffers, with link 0x0040 up.
    static func connected(buffers: UInt8 = 4) -> FakeController {
        var controller = FakeController(aclPackets: buffers)
        controller.initialize()
        controller.receive(FakeController.connectionComplete(handle: handle))
        return controller
    }

    /// An ATT Read Response carrying `marker`, one ACL packet.
    static func response(_ marker: UInt8) -> HostRequest {
        .sendL2CAP(handle: handle, channel: .attribute, payload: [0x0B, marker])
    }

    /// Where in everything sent the Disconnect went; nil when it did not.
    static func disconnectIndex(_ controller: FakeController) -> Int? {
        controller.sent.firstIndex(of: disconnect)
    }

    static func disconnectCount(_ controller: FakeController) -> Int {
        controller.sent.filter { $0 == disconnect }.count
    }

    @Test("queued ACL goes out before the Disconnect, in that order")
    func queuedDataGoesFirst() {
        var controller = Self.connected(buffers: 4)
        for marker in 1...6 { controller.perform(Self.response(UInt8(marker)), id: UInt64(marker)) }
        #expect(controller.host.queuedACLPacketCount(on: Self.handle) == 2, "four buffers: two wait")
        controller.perform(.disconnect(handle: Self.handle, reason: 0x13), id: 10)
        #expect(Self.disconnectIndex(controller) == nil, "not while two responses wait for buffers")

        controller.receive(FakeController.numberOfCompletedPackets([(Self.handle, 4)]))
        #expect(controller.host.queuedACLPacketCount(on: Self.handle) == 0)
        #expect(Self.disconnectIndex(controller) == nil, "not while the last two are in the controller")

        controller.receive(FakeController.numberOfCompletedPackets([(Self.handle, 2)]))
        guard let disconnectAt = Self.disconnectIndex(controller) else {
            Issue.record("no Disconnect once every packet was completed")
            return
        }
        let responses = controller.sentFrames(handle: Self.handle, channel: 4)
        #expect(responses == (1...6).map { [0x0B, UInt8($0)] }, "every response, in order")
        let lastACL = controller.sent.lastIndex { $0.first == 0x02 }
        #expect(lastACL.map { $0 < disconnectAt } == true, "the Disconnect after the last ACL packet")

        controller.receive(FakeController.commandStatus(0x0406))
        controller.receive(FakeController.disconnectionComplete(handle: Self.handle, reason: 0x16))
        #expect(controller.completions[HostRequestID(10)] == .success(.disconnected(reason: HCIStatus.connectionTerminatedByLocalHost)))
        #expect(controller.host.warningCounts[.undeliveredAtDisconnect] == 0, "nothing was lost")
    }

    @Test("the Disconnect waits for the link's Number Of Completed Packets, not another link's")
    func waitsForCompletedPackets() {
        var controller = Self.connected()
        controller.receive(FakeController.connectionComplete(handle: 0x41))
        controller.perform(Self.response(1), id: 1)
        controller.perform(.sendL2CAP(handle: 0x41, channel: .attribute, payload: [0x0B, 9]), id: 2)
        controller.perform(.disconnect(handle: Self.handle, reason: 0x13), id: 10)
        #expect(Self.disconnectIndex(controller) == nil, "the response is still in the controller")

        controller.receive(FakeController.numberOfCompletedPackets([(0x41, 1)]))
        #expect(Self.disconnectIndex(controller) == nil, "the other link's completion frees nothing of this one")

        controller.receive(FakeController.numberOfCompletedPackets([(Self.handle, 1)]))
        #expect(controller.sent.last == Self.disconnect, "sent with the completion of the link's last packet")
        #expect(Self.disconnectCount(controller) == 1)
    }

    @Test("a link with nothing in the controller disconnects at once")
    func idleLinkDisconnectsAtOnce() {
        var controller = Self.connected()
        controller.perform(.disconnect(handle: Self.handle, reason: 0x13), id: 10)
        #expect(controller.sent.last == Self.disconnect)
    }

    @Test("no completion: the Disconnect goes at the drain limit, and the loss is reported")
    func drainLimit() {
        var controller = Self.connected(buffers: 1)
        for marker in 1...3 { controller.perform(Self.response(UInt8(marker)), id: UInt64(marker)) }
        var out = HostOutput()
        controller.host.perform(.disconnect(handle: Self.handle, reason: 0x13), id: HostRequestID(10),
                                at: controller.now, into: &out)
        #expect(out.deadline == controller.now + HCIHost.disconnectDrainLimit,
                "the host's next tick is the drain limit")
        controller.take(out)
        #expect(HCIHost.disconnectDrainLimit == .seconds(2))

        controller.advance(.milliseconds(1999))
        #expect(Self.disconnectIndex(controller) == nil, "still draining just before the limit")
        #expect(controller.host.warningCounts[.undeliveredAtDisconnect] == 0)

        controller.advance(.milliseconds(1))
        #expect(controller.sent.last == Self.disconnect, "the limit passed: disconnect anyway")
        #expect(controller.warnings.contains(.undeliveredAtDisconnect(handle: Self.handle, unsent: 2, unacknowledged: 1)),
                "two responses never sent, one never completed: \(controller.warnings)")
        #expect(controller.host.warningCounts[.undeliveredAtDisconnect] == 1)
        #expect(controller.host.queuedACLPacketCount(on: Self.handle) == 0, "nothing more goes behind the Disconnect")

        controller.receive(FakeController.commandStatus(0x0406))
        controller.receive(FakeController.disconnectionComplete(handle: Self.handle, reason: 0x16))
        #expect(controller.completions[HostRequestID(10)] == .success(.disconnected(reason: HCIStatus.connectionTerminatedByLocalHost)))
        #expect(controller.host.warningCounts[.undeliveredAtDisconnect] == 1, "reported once")
        #expect(controller.sentFrames(handle: Self.handle, channel: 4) == [[0x0B, 1]])
    }

    @Test("while the link drains, a send is refused and a second disconnect is busy")
    func refusalsWhileDraining() {
        var controller = Self.connected()
        controller.perform(Self.response(1), id: 1)
        controller.perform(.disconnect(handle: Self.handle, reason: 0x13), id: 10)

        controller.perform(Self.response(2), id: 11)
        #expect(controller.completions[HostRequestID(11)] == .failure(.disconnecting(Self.handle)))
        // A pacing sender (an ATT bearer) has no request to fail: the drop is a warning.
        controller.host.send([0x0B, 3], on: Self.handle, channel: .attribute, at: controller.now, into: &controller.out)
        controller.takeOut()
        #expect(controller.host.warningCounts[.l2capDropped] == 1)
        #expect(controller.host.queuedACLPacketCount(on: Self.handle) == 0)

        controller.perform(.disconnect(handle: Self.handle, reason: 0x13), id: 12)
        guard case .failure(.busy)? = controller.completions[HostRequestID(12)] else {
            Issue.record("second disconnect: \(String(describing: controller.completions[HostRequestID(12)]))")
            return
        }

        // Once the Disconnect is out the link still takes nothing, and a third request is busy too.
        controller.receive(FakeController.numberOfCompletedPackets([(Self.handle, 1)]))
        #expect(controller.sent.last == Self.disconnect)
        controller.perform(Self.response(4), id: 13)
        #expect(controller.completions[HostRequestID(13)] == .failure(.disconnecting(Self.handle)))
        controller.perform(.disconnect(handle: Self.handle, reason: 0x13), id: 14)
        guard case .failure(.busy)? = controller.completions[HostRequestID(14)] else {
            Issue.record("third disconnect: \(String(describing: controller.completions[HostRequestID(14)]))")
            return
        }
        #expect(controller.sentFrames(handle: Self.handle, channel: 4) == [[0x0B, 1]])
        #expect(Self.disconnectCount(controller) == 1)
    }

    @Test("a peer that breaks ATT's sequence while the link drains: the Disconnect goes at once")
    func floodWhileDraining() {
        var controller = Self.connected()
        controller.perform(Self.response(1), id: 1)
        controller.perform(.disconnect(handle: Self.handle, reason: 0x16), id: 10)
        let indication: [UInt8] = [0x1D, 0x12, 0x00, 0x48]
        controller.receive(FakeController.acl(handle: Self.handle, channel: 4, payload: indication))
        controller.receive(FakeController.acl(handle: Self.handle, channel: 4, payload: indication))
        #expect(controller.delivered.contains(.indicationBeforeConfirmation(handle: Self.handle)))
        #expect(controller.sent.last == Self.disconnect, "Remote User Terminated Connection, without waiting")

        controller.receive(FakeController.commandStatus(0x0406))
        controller.receive(FakeController.disconnectionComplete(handle: Self.handle, reason: 0x16))
        #expect(controller.completions[HostRequestID(10)] == .success(.disconnected(reason: HCIStatus.connectionTerminatedByLocalHost)))
        #expect(Self.disconnectCount(controller) == 1)
    }
}
