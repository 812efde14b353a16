import HCI
import Testing

@Suite("HCI host: hostile controller and peer input")
struct HCIHostHostileInputTests {
    static func connected(_ handles: [UInt16]) -> FakeController {
        var controller = FakeController()
        controller.initialize()
        for handle in handles { controller.receive(FakeController.connectionComplete(handle: handle)) }
        return controller
    }

    @Test("malformed events are reported and dropped; the host keeps running")
    func malformedEvents() {
        var controller = Self.connected([0x01])
        // Declared length longer than the bytes present.
        controller.receive([0x04, 0x0E, 0x09, 0x01])
        // LE Connection Complete cut short.
        controller.receive([0x04, 0x3E, 0x03, 0x01, 0x00, 0x01])
        // Number Of Completed Packets claiming more entries than it holds.
        controller.receive([0x04, 0x13, 0x05, 0x03, 0x01, 0x00, 0x01, 0x00])
        #expect(controller.warnings.count == 3)
        #expect(controller.warnings.allSatisfy { if case .malformedEvent = $0 { true } else { false } })
        #expect(controller.closed == nil)
        #expect(controller.host.connectionHandles == [0x01])
    }

    @Test("ACL for unknown handles and broken L2CAP are dropped with warnings; other links stay up")
    func badACL() {
        var controller = Self.connected([0x01, 0x02])
        controller.receive(FakeController.acl(handle: 0x0E, channel: 4, payload: [0x0A, 0x01, 0x00]))
        // An ACL header whose length disagrees with the bytes.
        controller.receive([0x02, 0x01, 0x20, 0x20, 0x00, 0x01])
        // A continuation with nothing in progress.
        controller.receive([0x02, 0x01, 0x10, 0x02, 0x00, 0xAA, 0xBB])
        // An L2CAP length larger than the frame limit.
        controller.receive([0x02, 0x01, 0x20, 0x04, 0x00, 0xFF, 0xFF, 0x04, 0x00])
        // A frame for a channel nobody opened.
        controller.receive(FakeController.acl(handle: 0x01, channel: 0x0040, payload: [1, 2, 3]))
        #expect(controller.warnings.count == 5, "\(controller.warnings)")
        controller.receive(FakeController.acl(handle: 0x02, channel: 4, payload: [0x0A, 0x03, 0x00]))
        #expect(controller.delivered.contains(.attributeData(handle: 0x02, pdu: [0x0A, 0x03, 0x00])))
        #expect(controller.closed == nil)
        #expect(controller.host.connectionHandles == [0x01, 0x02])
    }

    @Test("Number Of Completed Packets for unknown handles or too many packets cannot inflate credits")
    func completedPacketsLies() {
        var controller = FakeController(aclPackets: 1)
        controller.initialize()
        controller.receive(FakeController.connectionComplete(handle: 0x01))
        controller.receive(FakeController.numberOfCompletedPackets([(0x0777, 9), (0x01, 5)]))
        #expect(controller.warnings.count == 2)
        controller.perform(.sendL2CAP(handle: 0x01, channel: .attribute, payload: [0x02, 0x17, 0x00]), id: 1)
        controller.perform(.sendL2CAP(handle: 0x01, channel: .attribute, payload: [0x02, 0x17, 0x00]), id: 2)
        #expect(controller.sent.filter { $0.first == 0x02 }.count == 1, "one buffer means one packet in flight")
    }

    @Test("an unexpected packet type and a stray Command Complete are warnings only")
    func strayPackets() {
        var controller = Self.connected([0x01])
        controller.receive([0x03, 0x01, 0x00, 0x00])
        controller.receive(FakeController.commandComplete(0x2005, [0]))
        #expect(controller.warnings == [.unexpectedPacketType(0x03), .unexpectedCommandCompletion(HCIOpcode(rawValue: 0x2005))])
        #expect(controller.closed == nil)
    }

    @Test("a Hardware Error stops the host; every connection ends with that error")
    func hardwareError() {
        var controller = Self.connected([0x01, 0x02])
        controller.receive([0x04, 0x10, 0x01, 0x42])
        #expect(controller.closed == .hardwareError(0x42))
        #expect(controller.delivered.contains(.connectionEnded(handle: 0x01, error: .hardwareError(0x42))))
        #expect(controller.delivered.contains(.connectionEnded(handle: 0x02, error: .hardwareError(0x42))))
        controller.perform(.stopScanning, id: 9)
        #expect(controller.completions[HostRequestID(9)] == .failure(.notReady))
    }

    @Test("the transport closing ends every connection and request with a clear error")
    func transportClosed() {
        var controller = Self.connected([0x01])
        controller.perform(.disconnect(handle: 0x01, reason: 0x13), id: 4)
        controller.take(controller.host.closing("stream cut", at: controller.now))
        #expect(controller.completions[HostRequestID(4)] == .failure(.transportClosed("stream cut")))
        #expect(controller.delivered.contains(.connectionEnded(handle: 0x01, error: .transportClosed("stream cut"))))
        #expect(controller.closed == .transportClosed("stream cut"))
    }
}

@Suite("L2CAP fixed channels: LE signaling and SMP answers")
struct FixedChannelTests {
    static func signaling(_ role: UInt8, _ payload: [UInt8]) -> FakeController {
        var controller = FakeController()
        controller.initialize()
        controller.receive(FakeController.connectionComplete(handle: 0x01, role: role))
        controller.receive(FakeController.acl(handle: 0x01, channel: 5, payload: payload))
        return controller
    }

    @Test("Connection Parameter Update Request within limits: accepted, then LE Connection Update")
    func parameterUpdateAccepted() {
        // Interval 24–40 (30–50 ms), latency 0, timeout 400 (4 s).
        let controller = Self.signaling(0, [0x12, 0x07, 0x08, 0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x90, 0x01])
        #expect(controller.sentFrames(handle: 0x01, channel: 5) == [[0x13, 0x07, 0x02, 0x00, 0x00, 0x00]])
        #expect(controller.lastOpcode == 0x2013)
    }

    @Test("Connection Parameter Update Request outside the limits: rejected, nothing applied")
    func parameterUpdateRejected() {
        // Timeout 10 (100 ms) is not above (1 + 0) × 50 ms × 2.
        let controller = Self.signaling(0, [0x12, 0x08, 0x08, 0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x0A, 0x00])
        #expect(controller.sentFrames(handle: 0x01, channel: 5) == [[0x13, 0x08, 0x02, 0x00, 0x01, 0x00]])
        #expect(controller.lastOpcode != 0x2013)
    }

    @Test("a peripheral answers a Connection Parameter Update Request with Command Reject")
    func parameterUpdateToPeripheral() {
        let controller = Self.signaling(1, [0x12, 0x09, 0x08, 0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x90, 0x01])
        #expect(controller.sentFrames(handle: 0x01, channel: 5) == [[0x01, 0x09, 0x02, 0x00, 0x00, 0x00]])
    }

    @Test("an unknown signaling command gets Command Reject, not understood")
    func unknownCommand() {
        let controller = Self.signaling(0, [0x7F, 0x0A, 0x00, 0x00])
        #expect(controller.sentFrames(handle: 0x01, channel: 5) == [[0x01, 0x0A, 0x02, 0x00, 0x00, 0x00]])
    }

    @Test("LE credit-based connection requests are refused: SPSM not supported")
    func creditBasedRefused() {
        let controller = Self.signaling(0, [0x14, 0x0B, 0x0A, 0x00, 0x80, 0x00, 0x40, 0x00, 0x00, 0x02, 0xF7, 0x00, 0x0A, 0x00])
        #expect(controller.sentFrames(handle: 0x01, channel: 5)
                == [[0x15, 0x0B, 0x0A, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x00]])
        #expect(controller.delivered.contains(.creditBasedConnectionRefused(handle: 0x01, spsm: 0x0080)))
    }

    @Test("enhanced credit-based connection requests are refused with one zero DCID per channel")
    func enhancedCreditBasedRefused() {
        let controller = Self.signaling(0, [0x17, 0x0C, 0x0C, 0x00, 0x27, 0x00, 0x40, 0x00, 0x40, 0x00, 0x05, 0x00,
                                            0x40, 0x00, 0x41, 0x00])
        #expect(controller.sentFrames(handle: 0x01, channel: 5)
                == [[0x18, 0x0C, 0x0C, 0x00, 0, 0, 0, 0, 0, 0, 0x02, 0x00, 0, 0, 0, 0]])
    }

    @Test("identifier zero and bare responses get no answer")
    func silentCases() {
        var controller = Self.signaling(0, [0x12, 0x00, 0x08, 0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x90, 0x01])
        controller.receive(FakeController.acl(handle: 0x01, channel: 5, payload: [0x13, 0x05, 0x02, 0x00, 0x00, 0x00]))
        controller.receive(FakeController.acl(handle: 0x01, channel: 5, payload: [0x12]))
        #expect(controller.sentFrames(handle: 0x01, channel: 5).isEmpty)
    }

    @Test("SMP Pairing Request gets Pairing Failed, Pairing Not Supported; Pairing Failed gets nothing")
    func pairingRefused() {
        var controller = FakeController()
        controller.initialize()
        controller.receive(FakeController.connectionComplete(handle: 0x01, role: 1))
        controller.receive(FakeController.acl(handle: 0x01, channel: 6, payload: [0x01, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07]))
        controller.receive(FakeController.acl(handle: 0x01, channel: 6, payload: [0x05, 0x08]))
        controller.receive(FakeController.acl(handle: 0x01, channel: 6, payload: [0x7E]))
        #expect(controller.sentFrames(handle: 0x01, channel: 6) == [[0x05, 0x05], [0x05, 0x07]])
        #expect(controller.delivered.contains(.pairingRefused(handle: 0x01)))
    }
}

@Suite("HCI host: hostile input during initialisation and connection setup")
struct HCIHostHostileSetupTests {
    @Test("truncated return parameters during initialisation stop the host with the opcode and offset")
    func truncatedReturnParameters() {
        var controller = FakeController()
        controller.take(controller.host.starting(at: controller.now))
        while let opcode = controller.lastOpcode, opcode != 0x2002, controller.closed == nil, controller.sent.count < 20 {
            let parameters: [UInt8] = switch opcode {
            case 0x1002: [0] + Array(repeating: 0, count: 64)
            case 0x1003, 0x2003: [0] + Array(repeating: 0, count: 8)
            default: [0]
            }
            controller.receive(FakeController.commandComplete(opcode, parameters))
        }
        controller.receive(FakeController.commandComplete(0x2002, [0x00, 0x1B]))
        guard case .malformedReturnParameters(let opcode, let error)? = controller.closed else {
            Issue.record("host did not stop: \(String(describing: controller.closed))")
            return
        }
        #expect(opcode == HCIOpcode(rawValue: 0x2002))
        // The buffer length field starts after the Status byte.
        #expect(error.offset == 1)
    }

    @Test("a controller without LE ACL buffers is refused with a clear error")
    func noBuffers() {
        var controller = FakeController(aclPacketLength: 27, aclPackets: 0)
        controller.initialize()
        #expect(controller.closed == .unsupportedController("it reports no LE ACL data buffers"))
    }

    @Test("a second LE Connection Complete for a live handle is ignored with a warning")
    func duplicateConnection() {
        var controller = FakeController(aclPackets: 1)
        controller.initialize()
        controller.receive(FakeController.connectionComplete(handle: 0x01))
        controller.perform(.sendL2CAP(handle: 0x01, channel: .attribute, payload: [0x02, 0x17, 0x00]), id: 1)
        controller.receive(FakeController.connectionComplete(handle: 0x01))
        #expect(controller.warnings == [.duplicateConnection(0x01)])
        // The one buffer is still taken: a second PDU waits for Number Of Completed Packets.
        controller.perform(.sendL2CAP(handle: 0x01, channel: .attribute, payload: [0x02, 0x17, 0x00]), id: 2)
        #expect(controller.sent.filter { $0.first == 0x02 }.count == 1)
        controller.receive(FakeController.numberOfCompletedPackets([(0x01, 1)]))
        #expect(controller.sent.filter { $0.first == 0x02 }.count == 2)
    }

    @Test("two connections share the ACL buffers in turn")
    func fairness() {
        var controller = FakeController(aclPacketLength: 27, aclPackets: 2)
        controller.initialize()
        controller.receive(FakeController.connectionComplete(handle: 0x01))
        controller.receive(FakeController.connectionComplete(handle: 0x02))
        let big = Array(repeating: UInt8(0xAA), count: 200)
        controller.perform(.sendL2CAP(handle: 0x01, channel: .attribute, payload: big), id: 1)
        controller.perform(.sendL2CAP(handle: 0x02, channel: .attribute, payload: [0x0A, 0x01, 0x00]), id: 2)
        controller.receive(FakeController.numberOfCompletedPackets([(0x01, 2)]))
        let handles = controller.sent.filter { $0.first == 0x02 }.map { UInt16($0[1]) | UInt16($0[2] & 0x0F) << 8 }
        // Handle 1 filled both buffers and was already next in line when handle 2 queued;
        // after that the two take turns instead of handle 1 draining its whole queue.
        #expect(Array(handles.prefix(4)) == [1, 1, 1, 2])
        controller.receive(FakeController.numberOfCompletedPackets([(0x01, 1), (0x02, 1)]))
        let after = controller.sent.filter { $0.first == 0x02 }.map { UInt16($0[1]) | UInt16($0[2] & 0x0F) << 8 }
        #expect(after.count == 6 && after[5] == 1)
    }
}

@Suite("HCI host: bounded memory")
struct HCIHostBoundsTests {
    @Test("a controller that never returns buffers cannot make the send queue grow without bound")
    func queueLimit() {
        var configuration = HostConfiguration(randomAddress: BluetoothAddress(0xC0, 1, 2, 3, 4, 5))
        configuration.maximumQueuedACLPackets = 8
        var controller = FakeController(configuration: configuration, aclPackets: 1)
        controller.initialize()
        controller.receive(FakeController.connectionComplete(handle: 0x01))
        for id in 1...20 { controller.perform(.sendL2CAP(handle: 0x01, channel: .attribute, payload: [0x52, 1, 0, 9]), id: UInt64(id)) }
        let failures = controller.completions.values.filter { if case .failure(.busy) = $0 { true } else { false } }
        // One packet in flight, eight waiting; the other eleven are refused.
        #expect(failures.count == 11)
        #expect(controller.host.queuedACLPacketCount(on: 0x01) == 8)
    }
}
