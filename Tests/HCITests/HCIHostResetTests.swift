import Testing
@testable import HCI

/// ``HostRequest/reset``: HCI_Reset, the initialisation again, and the controller's old
/// life (links, a pending connect, requests in flight) reported as over.
@Suite("HCI host: resetting the controller")
struct HCIHostResetTests {
    static let peer = BluetoothAddress(0xF0, 5, 4, 3, 2, 1)

    /// The opcodes of the commands in `packets`, in order.
    static func opcodes(_ packets: ArraySlice<[UInt8]>) -> [UInt16] {
        packets.filter { $0.first == 0x01 && $0.count >= 3 }.map { UInt16($0[1]) | UInt16($0[2]) << 8 }
    }

    /// A ready host with link 0x0001 up and a second connect waiting for its LE Connection Complete.
    static func busyHost() -> FakeController {
        var controller = FakeController()
        controller.initialize()
        controller.perform(.connect(peer: peer, peerAddressType: 1, parameters: ConnectionParameters(), timeout: .seconds(5)), id: 1)
        controller.receive(FakeController.commandStatus(0x200D))
        controller.receive(FakeController.connectionComplete(handle: 0x0001))
        controller.perform(.connect(peer: BluetoothAddress(0xF0, 9, 9, 9, 9, 9), peerAddressType: 1,
                                    parameters: ConnectionParameters(), timeout: .seconds(5)), id: 2)
        controller.receive(FakeController.commandStatus(0x200D))
        return controller
    }

    @Test("HCI_Reset goes out, the link is reported down, the pending connect fails, and init runs again")
    func resetRunsInitializationAgain() {
        var controller = FakeController()
        controller.initialize()
        let firstInit = Self.opcodes(controller.sent[...])
        controller = Self.busyHost()
        let before = controller.sent.count
        controller.perform(.reset, id: 3)
        #expect(controller.lastOpcode == 0x0C03, "HCI_Reset first")
        #expect(controller.delivered.contains(.disconnected(handle: 0x0001, reason: HCIStatus.connectionTerminatedByLocalHost)),
                "the live link ends with Connection Terminated By Local Host")
        #expect(controller.completions[HostRequestID(2)] == .failure(.controllerReset), "the pending connect fails")
        #expect(controller.completions[HostRequestID(3)] == nil, "not done before the controller answered")
        #expect(!controller.host.isReady && controller.host.connectionHandles.isEmpty)
        // Other requests wait for the controller to be back.
        controller.perform(.startScanning(ScanConfiguration()), id: 4)
        #expect(controller.completions[HostRequestID(4)] == .failure(.notReady))

        controller.answerInitialization()
        #expect(controller.host.isReady)
        #expect(controller.completions[HostRequestID(3)] == .success(.done))
        #expect(Self.opcodes(controller.sent[before...]) == firstInit,
                "the same initialisation as at start: event masks, buffer sizes, our address")
        let readies = controller.delivered.filter { if case .ready = $0 { true } else { false } }
        #expect(readies.count == 2, "ready again")
        #expect(controller.closed == nil)

        // The old handle is gone: its ACL finds no connection, a new link may reuse it.
        controller.perform(.sendL2CAP(handle: 0x0001, channel: .attribute, payload: [0x0A, 0x03, 0x00]), id: 5)
        #expect(controller.completions[HostRequestID(5)] == .failure(.unknownConnection(0x0001)))
        controller.perform(.connect(peer: Self.peer, peerAddressType: 1, parameters: ConnectionParameters(), timeout: .seconds(5)), id: 6)
        controller.receive(FakeController.commandStatus(0x200D))
        controller.receive(FakeController.connectionComplete(handle: 0x0001))
        guard case .success(.connected)? = controller.completions[HostRequestID(6)] else {
            Issue.record("connect after the reset: \(String(describing: controller.completions[HostRequestID(6)]))")
            return
        }
    }

    @Test("a disconnect waiting for its Disconnection Complete completes with the reset's reason")
    func pendingDisconnectCompletes() {
        var controller = Self.busyHost()
        controller.perform(.disconnect(handle: 0x0001, reason: 0x13), id: 3)
        controller.perform(.reset, id: 4)
        #expect(controller.completions[HostRequestID(3)] == .success(.disconnected(reason: HCIStatus.connectionTerminatedByLocalHost)))
        let downs = controller.delivered.filter { if case .disconnected = $0 { true } else { false } }
        #expect(downs.count == 1, "the link is reported down once")
    }

    @Test("a controller that never answers HCI_Reset: the reset fails with the command timeout, the host stops")
    func silentResetTimesOut() {
        var controller = Self.busyHost()
        controller.perform(.reset, id: 3)
        controller.advance(.seconds(4))
        #expect(controller.completions[HostRequestID(3)] == nil)
        controller.advance(.seconds(2))
        #expect(controller.completions[HostRequestID(3)] == .failure(.commandTimeout(HCIOpcode(rawValue: 0x0C03))))
        #expect(controller.closed == .commandTimeout(HCIOpcode(rawValue: 0x0C03)))
    }

    @Test("a Command Complete of a command the reset overtook is counted, not taken for an answer")
    func staleCompletionIsIgnored() {
        var controller = FakeController()
        controller.initialize()
        controller.perform(.startScanning(ScanConfiguration()), id: 1)  // LE Set Scan Parameters in flight
        controller.perform(.reset, id: 2)
        #expect(controller.completions[HostRequestID(1)] == .failure(.controllerReset))
        controller.receive(FakeController.commandComplete(0x200B, [0]))
        #expect(controller.lastOpcode == 0x0C03, "nothing more goes out until the reset is answered")
        controller.answerInitialization()
        #expect(controller.completions[HostRequestID(2)] == .success(.done))
        #expect(controller.warnings.contains(.unexpectedCommandCompletion(HCIOpcode(rawValue: 0x200B))))
    }
}
