/// Classic pcap: a 24-byte header whose magic gives byte order and timestamp resolution
/// (0xA1B2C3D4 microseconds, 0xA1B23C4D nanoseconds), then records of seconds, fraction,
/// included length and original length.
extension CaptureReader {
    mutating func readPcapHeader() throws(CaptureError) {
        let have = try Self.wrap(nil, 0) { () throws(CaptureError) in try buffer.fill(24) }
        guard have >= 24 else {
            throw CaptureError(.truncatedHeader(needed: 24, available: have), recordIndex: nil, byteOffset: 0)
        }
        let magic = buffer.uint32BE(0)
        bigEndian = magic == 0xA1B2_C3D4 || magic == 0xA1B2_3C4D
        nanoseconds = magic == 0xA1B2_3C4D || magic == 0x4D3C_B2A1
        let major = buffer.uint16(4, bigEndian: bigEndian)
        let minor = buffer.uint16(6, bigEndian: bigEndian)
        guard major == 2 else {
            throw CaptureError(.unsupportedVersion(major: Int(major), minor: Int(minor)), recordIndex: nil, byteOffset: 4)
        }
        let raw = buffer.uint32(20, bigEndian: bigEndian) & 0x0FFF_FFFF
        guard let linkType = PcapLinkType(rawValue: raw) else {
            throw CaptureError(.unsupportedLinkType(raw), recordIndex: nil, byteOffset: 20)
        }
        format = .pcap(linkType)
        snapLength = Int(buffer.uint32(16, bigEndian: bigEndian))
        buffer.consume(24)
    }

    @inline(__always)
    mutating func nextPcap(_ linkType: PcapLinkType) throws(CaptureError) -> CaptureRecord? {
        if try atCleanEnd() { return nil }
        let start = buffer.position
        try require(16, recordStart: start)
        let seconds = Int64(buffer.uint32(0, bigEndian: bigEndian))
        let fraction = Int64(buffer.uint32(4, bigEndian: bigEndian))
        let included = Int(buffer.uint32(8, bigEndian: bigEndian))
        let original = Int(buffer.uint32(12, bigEndian: bigEndian))
        guard included <= maximumRecordLength else {
            throw CaptureError(.recordTooLong(length: included, limit: maximumRecordLength), recordIndex: recordCount,
                               byteOffset: start)
        }
        try require(16 &+ included, recordStart: start)
        guard included <= original else {
            throw corrupt("included length \(included) exceeds the original length \(original)", at: start)
        }
        guard snapLength == 0 || included <= snapLength else {
            throw corrupt("included length \(included) exceeds the snapshot length \(snapLength)", at: start)
        }
        let timestamp = seconds &* 1_000_000 &+ (nanoseconds ? fraction / 1000 : fraction)
        let record = try linkTypeRecord(linkType, dataOffset: 16, included: included, original: original,
                                        timestamp: timestamp, recordStart: start)
        buffer.consume(16 &+ included)
        return record
    }
}
