import HCI
import Testing

@Suite("HCI host: initialisation, flow control, connections")
struct HCIHostTests {
    @Test("the init sequence runs in order and ends with LE Set Random Address")
    func initializationOrder() {
        var controller = FakeController()
        controller.initialize()
        #expect(controller.host.isReady)
        let opcodes = controller.sent.map { UInt16($0[1]) | UInt16($0[2]) << 8 }
        #expect(opcodes == [0x0C03, 0x1002, 0x1003, 0x0C01, 0x2001, 0x2003, 0x2002, 0x1009, 0x2005])
        #expect(controller.sent.last == [0x01, 0x05, 0x20, 0x06, 5, 4, 3, 2, 1, 0xC0])
        guard case .ready(let info)? = controller.delivered.first else {
            Issue.record("no ready event: \(controller.delivered)")
            return
        }
        #expect(info.aclDataPacketLength == 27 && info.totalACLDataPackets == 4)
        #expect(info.publicAddress == BluetoothAddress(1, 2, 3, 4, 5, 6))
        #expect(!info.usesExtendedCommands)
    }

    @Test("extended commands when the controller has LE Extended Advertising")
    func extendedScanning() {
        var controller = FakeController()
        controller.initialize(leFeatures: 0x00)
        controller.perform(.startScanning(ScanConfiguration()), id: 1)
        #expect(controller.lastOpcode == 0x200B, "legacy LE Set Scan Parameters")
        #expect(controller.sent.last == [0x01, 0x0B, 0x20, 7, 0x01, 0x10, 0x00, 0x10, 0x00, 0x01, 0x00])

        // LE Extended Advertising is LE feature bit 12: octet 1, bit 4.
        var fresh = FakeController()
        fresh.take(fresh.host.starting(at: fresh.now))
        while !fresh.host.isReady, let opcode = fresh.lastOpcode, fresh.sent.count < 20 {
            let parameters: [UInt8]
            switch opcode {
            case 0x1002: parameters = [0] + Array(repeating: 0, count: 64)
            case 0x1003: parameters = [0] + Array(repeating: 0, count: 8)
            case 0x2003: parameters = [0, 0x00, 0x10, 0, 0, 0, 0, 0, 0]
            case 0x2002: parameters = [0, 27, 0, 4]
            case 0x1009: parameters = [0, 6, 5, 4, 3, 2, 1]
            default: parameters = [0]
            }
            fresh.receive(FakeController.commandComplete(opcode, parameters))
        }
        #expect(fresh.host.controller?.usesExtendedCommands == true)
        fresh.perform(.startScanning(ScanConfiguration()), id: 1)
        #expect(fresh.lastOpcode == 0x2041)
        #expect(fresh.sent.last == [0x01, 0x41, 0x20, 8, 0x01, 0x00, 0x01, 0x01, 0x10, 0x00, 0x10, 0x00])
        fresh.receive(FakeController.commandComplete(0x2041, [0]))
        #expect(fresh.lastOpcode == 0x2042)
        fresh.receive(FakeController.commandComplete(0x2042, [0]))
        #expect(fresh.completions[HostRequestID(1)] == .success(.done))
    }

    @Test("command flow control: no command leaves while the controller allows none")
    func commandCredits() {
        var controller = FakeController()
        controller.initialize()
        let before = controller.sent.count
        // A No-Operation Command Complete with zero credits stops the host sending.
        controller.receive(FakeController.commandComplete(0x0000, [], credits: 0))
        controller.perform(.stopScanning, id: 7)
        #expect(controller.sent.count == before)
        controller.receive(FakeController.commandComplete(0x0000, [], credits: 1))
        controller.perform(.rawCommand(opcode: HCIOpcode(rawValue: 0x1001), parameters: []), id: 8)
        #expect(controller.sent.count == before + 1)
    }

    @Test("a command without an answer times out and stops the host with that opcode")
    func commandTimeout() {
        var controller = FakeController()
        controller.initialize()
        controller.receive(FakeController.connectionComplete(handle: 0x40))
        controller.perform(.stopScanning, id: 3)
        controller.advance(.seconds(6))
        #expect(controller.closed == .commandTimeout(HCIOpcode(rawValue: 0x200C)))
        #expect(controller.completions[HostRequestID(3)] == .failure(.commandTimeout(HCIOpcode(rawValue: 0x200C))))
        #expect(controller.delivered.contains(.connectionEnded(handle: 0x40, error: .commandTimeout(HCIOpcode(rawValue: 0x200C)))))
    }

    @Test("ACL: fragments fit the buffer size, and no more are in flight than buffers exist")
    func aclFragmentationAndFlowControl() {
        var controller = FakeController(aclPacketLength: 27, aclPackets: 2)
        controller.initialize()
        controller.receive(FakeController.connectionComplete(handle: 0x01))
        let payload = (0..<100).map { UInt8($0) }
        controller.perform(.sendL2CAP(handle: 0x01, channel: .attribute, payload: payload), id: 1)
        var acl = controller.sent.filter { $0.first == 0x02 }
        #expect(acl.count == 2, "two buffers: two packets in flight")
        #expect(acl[0][2] >> 4 == 0b00, "first fragment: PB 00")
        #expect(acl[1][2] >> 4 == 0b01, "continuing fragment: PB 01")
        #expect(acl.allSatisfy { $0.count - 5 <= 27 })
        controller.receive(FakeController.numberOfCompletedPackets([(0x01, 2)]))
        controller.receive(FakeController.numberOfCompletedPackets([(0x01, 2)]))
        acl = controller.sent.filter { $0.first == 0x02 }
        // 104 bytes of frame in 27-byte pieces: 4 packets.
        #expect(acl.count == 4)
        let frame = acl.flatMap { $0[5...] }
        #expect(frame == [100, 0, 4, 0] + payload)
    }

    @Test("ACL: an unfragmented PDU longer than the buffer size is accepted from the controller")
    func oversizeInboundACL() {
        var controller = FakeController(aclPacketLength: 27)
        controller.initialize()
        controller.receive(FakeController.connectionComplete(handle: 0x01))
        let pdu = [0x0B] + Array(repeating: UInt8(0x5A), count: 246)
        controller.receive(FakeController.acl(handle: 0x01, channel: 4, payload: pdu))
        #expect(controller.delivered.contains(.attributeData(handle: 0x01, pdu: pdu)))
    }

    @Test("ACL: fragments from the controller are reassembled")
    func inboundReassembly() {
        var controller = FakeController()
        controller.initialize()
        controller.receive(FakeController.connectionComplete(handle: 0x02))
        let whole = FakeController.acl(handle: 0x02, channel: 4, payload: [0x0B] + (1...40).map { UInt8($0) })
        let frame = Array(whole[5...])
        controller.receive([0x02, 0x02, 0x20, 10, 0] + frame[0..<10])
        controller.receive([0x02, 0x02, 0x10, UInt8(frame.count - 10), 0] + frame[10...])
        #expect(controller.delivered.contains(.attributeData(handle: 0x02, pdu: [0x0B] + (1...40).map { UInt8($0) })))
    }

    @Test("connect, then the controller reports the link; disconnect completes with the reason")
    func connectAndDisconnect() {
        var controller = FakeController()
        controller.initialize()
        controller.perform(.connect(peer: BluetoothAddress(0xF0, 5, 4, 3, 2, 1), peerAddressType: 1,
                                    parameters: ConnectionParameters(), timeout: .seconds(5)), id: 1)
        #expect(controller.lastOpcode == 0x200D)
        #expect(controller.sent.last?[3] == 25, "LE Create Connection has 25 parameter bytes")
        #expect(Array(controller.sent.last![9..<16]) == [0x01, 1, 2, 3, 4, 5, 0xF0], "peer type random, address LSB first")
        #expect(controller.sent.last?[16] == 0x01, "own address type random")
        controller.receive(FakeController.commandStatus(0x200D))
        controller.receive(FakeController.connectionComplete(handle: 0x0001))
        guard case .success(.connected(let info))? = controller.completions[HostRequestID(1)] else {
            Issue.record("connect did not complete: \(controller.completions)")
            return
        }
        #expect(info.role == .central && info.peerAddressType == .random && info.ownAddressType == .random)
        controller.perform(.disconnect(handle: 0x0001, reason: 0x13), id: 2)
        #expect(controller.sent.last == [0x01, 0x06, 0x04, 3, 0x01, 0x00, 0x13])
        controller.receive(FakeController.commandStatus(0x0406))
        controller.receive(FakeController.disconnectionComplete(handle: 0x0001, reason: 0x16))
        #expect(controller.completions[HostRequestID(2)] == .success(.disconnected(reason: HCIStatus.connectionTerminatedByLocalHost)))
        #expect(controller.delivered.contains(.disconnected(handle: 0x0001, reason: HCIStatus.connectionTerminatedByLocalHost)))
    }

    @Test("connect timeout cancels the attempt and fails with connectionTimedOut")
    func connectTimeout() {
        var controller = FakeController()
        controller.initialize()
        controller.perform(.connect(peer: BluetoothAddress(rawValue: 1), peerAddressType: 1,
                                    parameters: ConnectionParameters(), timeout: .milliseconds(500)), id: 1)
        controller.receive(FakeController.commandStatus(0x200D))
        controller.advance(.milliseconds(600))
        #expect(controller.lastOpcode == 0x200E, "LE Create Connection Cancel")
        controller.receive(FakeController.commandComplete(0x200E, [0]))
        // As the spec requires: LE Connection Complete with Unknown Connection Identifier.
        let failed: [UInt8] = [0x04, 0x3E, 19, 0x01, 0x02] + Array(repeating: 0, count: 17)
        controller.receive(failed)
        #expect(controller.completions[HostRequestID(1)] == .failure(.connectionTimedOut))
    }
}

@Suite("HCI host: link events are recognised")
struct HCIHostLinkEventTests {
    @Test("Data Length Change, PHY Update Complete and Connection Update Complete are delivered")
    func linkEvents() {
        var controller = FakeController()
        controller.initialize()
        controller.receive(FakeController.connectionComplete(handle: 0x01))
        controller.receive([0x04, 0x3E, 11, 0x07, 0x01, 0x00, 0xFB, 0x00, 0x48, 0x08, 0xFB, 0x00, 0x48, 0x08])
        controller.receive([0x04, 0x3E, 6, 0x0C, 0x00, 0x01, 0x00, 0x02, 0x02])
        controller.receive([0x04, 0x3E, 10, 0x03, 0x00, 0x01, 0x00, 0x28, 0x00, 0x00, 0x00, 0x90, 0x01])
        var kinds: [String] = []
        for event in controller.delivered {
            switch event {
            case .dataLengthChanged(let change): if change.handle == 1 && change.maxTxOctets == 251 { kinds.append("length") }
            case .phyUpdated(let update): if update.handle == 1 && update.txPHY == 2 { kinds.append("phy") }
            case .connectionParametersUpdated(let update):
                if update.handle == 1 && update.connectionInterval == 0x28 && update.supervisionTimeout == 400 { kinds.append("update") }
            default: break
            }
        }
        #expect(kinds == ["length", "phy", "update"])
    }
}

@Suite("HCI host: extended advertising reports")
struct ExtendedReportTests {
    /// One LE Extended Advertising Report event holding one report.
    static func report(eventType: UInt16, sid: UInt8 = 1, data: [UInt8]) -> [UInt8] {
        var body: [UInt8] = [0x0D, 0x01, UInt8(eventType & 0xFF), UInt8(eventType >> 8), 0x01,
                             1, 2, 3, 4, 5, 0xF0, 0x01, 0x01, sid, 0x7F, 0xC4, 0x00, 0x00, 0x00,
                             0, 0, 0, 0, 0, 0]
        body.append(UInt8(data.count))
        body += data
        return [0x04, 0x3E, UInt8(body.count)] + body
    }

    @Test("chained reports are delivered once, joined; truncated chains say so")
    func chains() {
        var controller = FakeController()
        controller.initialize()
        controller.receive(Self.report(eventType: 0x0020, data: [1, 2, 3]))
        controller.receive(Self.report(eventType: 0x0020, data: [4, 5]))
        controller.receive(Self.report(eventType: 0x0000, data: [6]))
        controller.receive(Self.report(eventType: 0x0020, sid: 2, data: [9]))
        controller.receive(Self.report(eventType: 0x0040, sid: 2, data: [10]))
        let reports = controller.delivered.compactMap { event -> AdvertisingReport? in
            if case .advertisingReport(let report) = event { return report }
            return nil
        }
        #expect(reports.map(\.data) == [[1, 2, 3, 4, 5, 6], [9, 10]])
        #expect(reports.map(\.dataStatus) == [0, 2])
    }
}
