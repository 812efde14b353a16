import HCI

/// btsnoop version 1: a 16-byte header ("btsnoop\0", version, datalink), then records of
/// original length, included length, flags, cumulative drops and a signed 64-bit
/// timestamp in microseconds since year 0, all big-endian, followed by the packet.
extension CaptureReader {
    static var btsnoopHeaderLength: Int { 16 }
    static var btsnoopRecordHeaderLength: Int { 24 }

    mutating func readBTSnoopHeader() throws(CaptureError) {
        let have = try Self.wrap(nil, 0) { () throws(CaptureError) in try buffer.fill(16) }
        guard have >= 16 else {
            throw CaptureError(.truncatedHeader(needed: 16, available: have), recordIndex: nil, byteOffset: 0)
        }
        guard buffer.uint32BE(4) == 0x6F6F_7000 else { throw CaptureError(.unknownFormat, recordIndex: nil, byteOffset: 0) }
        let version = buffer.uint32BE(8)
        guard version == 1 else {
            throw CaptureError(.unsupportedVersion(major: Int(version), minor: 0), recordIndex: nil, byteOffset: 8)
        }
        let raw = buffer.uint32BE(12)
        guard let datalink = BTSnoopDatalink(rawValue: raw) else {
            throw CaptureError(.unsupportedLinkType(raw), recordIndex: nil, byteOffset: 12)
        }
        format = .btsnoop(datalink)
        buffer.consume(16)
    }

    @inline(__always)
    mutating func nextBTSnoop(_ datalink: BTSnoopDatalink) throws(CaptureError) -> CaptureRecord? {
        if try atCleanEnd() { return nil }
        let start = buffer.position
        try require(24, recordStart: start)
        let original = Int(buffer.uint32BE(0))
        let included = Int(buffer.uint32BE(4))
        let flags = buffer.uint32BE(8)
        let drops = buffer.uint32BE(12)
        let stamp = Int64(bitPattern: buffer.uint64BE(16))
        guard included <= maximumRecordLength else {
            throw CaptureError(.recordTooLong(length: included, limit: maximumRecordLength), recordIndex: recordCount,
                               byteOffset: start)
        }
        try require(24 &+ included, recordStart: start)
        guard included <= original else {
            throw corrupt("included length \(included) exceeds the original length \(original)", at: start)
        }
        guard BTSnoopTime.timestamps.contains(stamp) else {
            throw corrupt("timestamp 0x\(String(UInt64(bitPattern: stamp), radix: 16)) is outside the btsnoop range "
                + "(the Unix epoch through year 9999)", at: start)
        }
        let timestamp = stamp &- BTSnoopTime.epochOffset
        let kind: CaptureRecord.Kind
        let direction: CaptureDirection
        let payload: ArraySlice<UInt8>
        var controller: UInt16 = 0
        var overhead = 0
        switch datalink {
        case .hciUART:
            guard included >= 1 else { throw corrupt("empty H4 record", at: start) }
            kind = h4Kind(buffer.byte(24))
            direction = flags & 1 == 0 ? .sent : .received
            payload = buffer.slice(25, included &- 1)
            overhead = 1
        case .hciUnencapsulated:
            direction = flags & 1 == 0 ? .sent : .received
            if flags & 2 != 0 {
                kind = .hci(direction == .sent ? .command : .event)
            } else {
                kind = .hci(.aclData)
            }
            payload = buffer.slice(24, included)
        case .linuxMonitor:
            let opcode = UInt16(truncatingIfNeeded: flags)
            controller = UInt16(truncatingIfNeeded: flags >> 16)
            if let (type, dir) = MonitorOpcode.packet(for: opcode) {
                kind = .hci(type)
                direction = dir
            } else {
                kind = .monitor(opcode: opcode)
                direction = .received
            }
            payload = buffer.slice(24, included)
        }
        let record = CaptureRecord(kind: kind, direction: direction, controller: controller, timestamp: timestamp,
                                   payload: payload, originalLength: max(0, original &- overhead), drops: drops,
                                   index: recordCount, byteOffset: start)
        buffer.consume(24 &+ included)
        return record
    }
}
