import HCI
import Testing

@Suite struct HCIPacketTests {
    @Test func addressPrintsMostSignificantFirst() {
        let a = BluetoothAddress(littleEndian: [0x01, 0x00, 0x01, 0x01, 0xAA, 0x00][...])!
        #expect(a.description == "00:AA:01:01:00:01")
        #expect(BluetoothAddress("00:aa:01:01:00:01") == a)
        #expect(a.littleEndianBytes == [0x01, 0x00, 0x01, 0x01, 0xAA, 0x00])
        #expect(BluetoothAddress(littleEndian: [1, 2, 3][...]) == nil)
        #expect(BluetoothAddress("00:AA:01:01:00") == nil)
        #expect(BluetoothAddress(rawValue: a.rawValue) == a)
    }

    @Test func opcodeSplitsIntoGroupAndCommand() {
        let op = HCIOpcode(rawValue: 0x200C) // LE Set Scan Enable
        #expect(op.ogf == 0x08)
        #expect(op.ocf == 0x000C)
        #expect(HCIOpcode(ogf: 0x08, ocf: 0x0C) == op)
    }

    @Test func commandPacket() throws {
        let bytes: [UInt8] = [0x0C, 0x20, 0x02, 0x01, 0x00]
        let c = try HCICommandPacket(decoding: bytes[...])
        #expect(c.opcode.rawValue == 0x200C)
        #expect(Array(c.parameters) == [0x01, 0x00])
        #expect(c.encoded == bytes)
        #expect(throws: HCIDecodingError.self) { try HCICommandPacket(decoding: [0x0C, 0x20, 0x03, 0x01][...]) }
    }

    @Test func aclHeader() throws {
        // Handle 0x02A, PB=10, BC=00, 7 bytes.
        let bytes: [UInt8] = [0x2A, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x02, 0x05, 0x02]
        let p = try ACLDataPacket(decoding: bytes[...])
        #expect(p.handle == 0x2A)
        #expect(p.boundary == .firstFlushable)
        #expect(p.broadcast == 0)
        #expect(p.data.count == 7)
        #expect(p.encoded == bytes)
        let e = #expect(throws: HCIDecodingError.self) { try ACLDataPacket(decoding: bytes.dropLast()) }
        #expect(e?.offset == 2)
        #expect(throws: HCIDecodingError.self) { try ACLDataPacket(decoding: [0x2A, 0x20][...]) }
    }

    @Test func l2capBasicFrame() throws {
        let bytes: [UInt8] = [0x03, 0x00, 0x04, 0x00, 0x02, 0x05, 0x02]
        let f = try L2CAPBasicFrame(decoding: bytes[...])
        #expect(f.channel == .attribute)
        #expect(Array(f.payload) == [0x02, 0x05, 0x02])
        #expect(f.encoded == bytes)
        #expect(L2CAPChannelID.securityManager.description == "SMP")
        #expect(throws: HCIDecodingError.self) { try L2CAPBasicFrame(decoding: bytes.dropLast()) }
    }

    @Test func legacyConnectionComplete() throws {
        // From kernel/bluez_hr_mtu517.btsnoop: hci0 connects to 00:AA:01:01:00:01 as central.
        let bytes: [UInt8] = [0x3E, 0x13, 0x01, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x01, 0xAA, 0x00,
                              0x18, 0x00, 0x00, 0x00, 0x2A, 0x00, 0x00]
        guard case let .leConnectionComplete(c) = try HCIEvent(decoding: bytes[...]) else {
            Issue.record("not a connection complete")
            return
        }
        #expect(c.status.isSuccess)
        #expect(c.handle == 0x2A)
        #expect(c.role == .central)
        #expect(c.peerAddressType == .public)
        #expect(c.peerAddress.description == "00:AA:01:01:00:01")
        #expect(c.connectionInterval == 0x18)
        #expect(c.supervisionTimeout == 0x2A)
        #expect(c.localResolvablePrivateAddress == nil)
    }

    @Test func enhancedConnectionComplete() throws {
        var params: [UInt8] = [0x0A, 0x00, 0x40, 0x00, 0x01, 0x03, 6, 5, 4, 3, 2, 0xC1]
        params += [UInt8](repeating: 0, count: 12) + [0x06, 0x00, 0x00, 0x00, 0xC8, 0x00, 0x01]
        let bytes: [UInt8] = [0x3E, UInt8(params.count)] + params
        guard case let .leConnectionComplete(c) = try HCIEvent(decoding: bytes[...]) else {
            Issue.record("not a connection complete")
            return
        }
        #expect(c.role == .peripheral)
        #expect(c.peerAddressType == .randomIdentity)
        #expect(c.peerAddress.description == "C1:02:03:04:05:06")
        #expect(c.localResolvablePrivateAddress == BluetoothAddress(rawValue: 0))
        #expect(c.supervisionTimeout == 200)
        // A truncated event names the field and an offset inside the packet.
        let e = #expect(throws: HCIDecodingError.self) {
            try HCIEvent(decoding: ([0x3E, 0x08] + Array(params.prefix(8)))[...])
        }
        #expect(e?.offset == 8) // the peer address field: 2 header bytes, subevent, 5 bytes
        #expect(e?.structure == "LE Connection Complete")
    }

    @Test func otherEvents() throws {
        func decode(_ b: [UInt8]) throws -> HCIEvent { try HCIEvent(decoding: b[...]) }
        guard case let .disconnectionComplete(d) = try decode([0x05, 0x04, 0x00, 0x2A, 0x00, 0x13]) else { Issue.record(); return }
        #expect(d.handle == 0x2A && d.reason.rawValue == 0x13)
        guard case let .commandComplete(cc) = try decode([0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]) else { Issue.record(); return }
        #expect(cc.opcode.rawValue == 0x0C03 && Array(cc.returnParameters) == [0x00])
        guard case let .commandStatus(cs) = try decode([0x0F, 0x04, 0x00, 0x01, 0x0D, 0x20]) else { Issue.record(); return }
        #expect(cs.opcode.rawValue == 0x200D && cs.status.isSuccess)
        guard case let .numberOfCompletedPackets(n) = try decode([0x13, 0x05, 0x01, 0x2A, 0x00, 0x02, 0x00]) else { Issue.record(); return }
        #expect(n.entries == [.init(handle: 0x2A, completedPackets: 2)])
        #expect(throws: HCIDecodingError.self) { try decode([0x13, 0x05, 0x02, 0x2A, 0x00, 0x02, 0x00]) }
        guard case let .encryptionChange(ec) = try decode([0x08, 0x04, 0x00, 0x2A, 0x00, 0x01]) else { Issue.record(); return }
        #expect(ec.encryptionEnabled == 1 && ec.keySize == nil)
        guard case let .encryptionChange(ec2) = try decode([0x59, 0x05, 0x00, 0x2A, 0x00, 0x01, 0x10]) else { Issue.record(); return }
        #expect(ec2.keySize == 16)
        guard case let .leDataLengthChange(dl) = try decode([0x3E, 0x0B, 0x07, 0x2A, 0x00, 0xFB, 0x00, 0x48, 0x08, 0x1B, 0x00, 0x48, 0x01])
        else { Issue.record(); return }
        #expect(dl.maxTxOctets == 251 && dl.maxRxOctets == 27 && dl.maxTxTime == 2120)
        guard case let .lePHYUpdateComplete(phy) = try decode([0x3E, 0x06, 0x0C, 0x00, 0x2A, 0x00, 0x02, 0x02]) else { Issue.record(); return }
        #expect(phy.txPHY == 2 && phy.rxPHY == 2)
        guard case .unknown(0x0C, _) = try decode([0x0C, 0x00]) else { Issue.record(); return }
        guard case .unknownLEMeta(0x03, _) = try decode([0x3E, 0x01, 0x03]) else { Issue.record(); return }
        #expect(throws: HCIDecodingError.self) { try decode([0x0E, 0x05, 0x01]) }
        #expect(throws: HCIDecodingError.self) { try decode([0x3E, 0x00]) }
    }

    @Test func legacyAdvertisingReport() throws {
        // From kernel/bluez_hr_mtu517.btsnoop: flags 0x06... and TX power.
        let data: [UInt8] = [0x02, 0x01, 0x06, 0x02, 0x0A, 0x00]
        let bytes: [UInt8] = [0x3E, UInt8(12 + data.count), 0x02, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x01, 0xAA, 0x00,
                              UInt8(data.count)] + data + [0xC4]
        guard case let .leAdvertisingReport(reports) = try HCIEvent(decoding: bytes[...]) else { Issue.record(); return }
        #expect(reports.count == 1)
        #expect(reports[0].address.description == "00:AA:01:01:00:01")
        #expect(reports[0].rssi == -60)
        let ad = AdvertisingData(decoding: reports[0].data)
        #expect(ad.flags == 0x06)
        #expect(ad.txPowerLevel == 0)
    }
}
