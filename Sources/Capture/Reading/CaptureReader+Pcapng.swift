/// pcapng: a sequence of blocks (type, total length, body, total length again). The
/// Section Header Block's byte-order magic sets the byte order of its section; Interface
/// Description Blocks give each interface's link type and timestamp resolution; packets
/// are in Enhanced, Simple or (obsolete) Packet Blocks. Other blocks are skipped.
extension CaptureReader {
    static var pcapngSectionHeader: UInt32 { 0x0A0D_0D0A }

    mutating func readPcapngHeader() throws(CaptureError) {
        let have = try Self.wrap(nil, 0) { () throws(CaptureError) in try buffer.fill(28) }
        guard have >= 28 else {
            throw CaptureError(.truncatedHeader(needed: 28, available: have), recordIndex: nil, byteOffset: 0)
        }
        try readSectionHeader(recordIndex: nil)
        // Report the first interface's link type as the file's, when it comes first.
        format = .pcapng(.bluetoothHCIH4WithPHDR)
        if try buffer.fill(20) >= 20, buffer.uint32(0, bigEndian: bigEndian) == 1 {
            let raw = buffer.uint16(8, bigEndian: bigEndian)
            if let linkType = PcapLinkType(rawValue: UInt32(raw)) {
                format = .pcapng(linkType)
            } else {
                throw CaptureError(.unsupportedLinkType(UInt32(raw)), recordIndex: nil, byteOffset: buffer.position)
            }
        }
    }

    /// Parses the Section Header Block at the buffer's start and consumes it.
    mutating func readSectionHeader(recordIndex: Int?) throws(CaptureError) {
        let start = buffer.position
        let magic = buffer.uint32BE(8)
        switch magic {
        case 0x1A2B_3C4D: bigEndian = true
        case 0x4D3C_2B1A: bigEndian = false
        default:
            throw CaptureError(.invalidRecord("bad section byte-order magic"), recordIndex: recordIndex, byteOffset: start)
        }
        let major = buffer.uint16(12, bigEndian: bigEndian)
        let minor = buffer.uint16(14, bigEndian: bigEndian)
        guard major == 1 else {
            throw CaptureError(.unsupportedVersion(major: Int(major), minor: Int(minor)), recordIndex: recordIndex,
                               byteOffset: start)
        }
        let length = Int(buffer.uint32(4, bigEndian: bigEndian))
        try checkBlockLength(length, minimum: 28, start: start, index: recordIndex)
        interfaces.removeAll()
        buffer.consume(length)
    }

    func checkBlockLength(_ length: Int, minimum: Int, start: Int64, index: Int?) throws(CaptureError) {
        guard length >= minimum, length % 4 == 0 else {
            throw CaptureError(.invalidRecord("block length \(length)"), recordIndex: index, byteOffset: start)
        }
        guard length <= maximumRecordLength &+ 64 else {
            throw CaptureError(.recordTooLong(length: length, limit: maximumRecordLength &+ 64), recordIndex: index,
                               byteOffset: start)
        }
    }

    mutating func nextPcapng() throws(CaptureError) -> CaptureRecord? {
        while true {
            if try atCleanEnd() { return nil }
            let start = buffer.position
            try require(12, recordStart: start)
            let type = buffer.uint32(0, bigEndian: bigEndian)
            if type == Self.pcapngSectionHeader {
                try require(28, recordStart: start)
                try readSectionHeader(recordIndex: recordCount)
                continue
            }
            let length = Int(buffer.uint32(4, bigEndian: bigEndian))
            try checkBlockLength(length, minimum: 12, start: start, index: recordCount)
            try require(length, recordStart: start)
            guard buffer.uint32(length &- 4, bigEndian: bigEndian) == UInt32(length) else {
                throw corrupt("trailing block length differs from leading", at: start)
            }
            switch type {
            case 1:
                try readInterface(length: length, start: start)
            case 6, 2, 3:
                let record = try packetBlock(type: type, length: length, start: start)
                buffer.consume(length)
                return record
            default:
                break
            }
            buffer.consume(length)
        }
    }

    mutating func readInterface(length: Int, start: Int64) throws(CaptureError) {
        guard length >= 20 else { throw corrupt("interface block of \(length) bytes", at: start) }
        let raw = buffer.uint16(8, bigEndian: bigEndian)
        var interface = PcapngInterface(linkType: PcapLinkType(rawValue: UInt32(raw)), rawLinkType: raw)
        interface.snapLength = Int(buffer.uint32(12, bigEndian: bigEndian))
        // Options: code, length, value padded to 4 bytes; code 9 is if_tsresol (one
        // byte), code 14 if_tsoffset (eight: signed seconds).
        var offset = 16
        let end = length &- 4
        while offset &+ 4 <= end {
            let code = buffer.uint16(offset, bigEndian: bigEndian)
            let size = Int(buffer.uint16(offset &+ 2, bigEndian: bigEndian))
            if code == 0 { break }
            guard offset &+ 4 &+ size <= end else { throw corrupt("interface option overruns its block", at: start) }
            switch code {
            case 9:
                guard size == 1 else { throw corrupt("if_tsresol of \(size) bytes (it has 1)", at: start) }
                interface.resolution = buffer.byte(offset &+ 4)
            case 14:
                guard size == 8 else { throw corrupt("if_tsoffset of \(size) bytes (it has 8)", at: start) }
                let first = UInt64(buffer.uint32(offset &+ 4, bigEndian: bigEndian))
                let second = UInt64(buffer.uint32(offset &+ 8, bigEndian: bigEndian))
                interface.offsetSeconds = Int64(bitPattern: bigEndian ? first << 32 | second : second << 32 | first)
            default:
                break
            }
            offset &+= 4 &+ ((size &+ 3) & ~3)
        }
        interfaces.append(interface)
    }

    mutating func packetBlock(type: UInt32, length: Int, start: Int64) throws(CaptureError) -> CaptureRecord {
        let interfaceID: Int
        let dataOffset: Int
        let included: Int
        let original: Int
        var ticks: UInt64 = 0
        switch type {
        case 6, 2:
            guard length >= 32 else { throw corrupt("packet block of \(length) bytes", at: start) }
            interfaceID = type == 6 ? Int(buffer.uint32(8, bigEndian: bigEndian))
                                    : Int(buffer.uint16(8, bigEndian: bigEndian))
            ticks = UInt64(buffer.uint32(12, bigEndian: bigEndian)) &<< 32 | UInt64(buffer.uint32(16, bigEndian: bigEndian))
            included = Int(buffer.uint32(20, bigEndian: bigEndian))
            original = Int(buffer.uint32(24, bigEndian: bigEndian))
            dataOffset = 28
            guard included <= length &- 32 else {
                throw corrupt("captured length \(included) overruns its \(length)-byte block", at: start)
            }
            guard included <= original else {
                throw corrupt("captured length \(included) exceeds the original length \(original)", at: start)
            }
        default:
            guard length >= 16 else { throw corrupt("simple packet block of \(length) bytes", at: start) }
            interfaceID = 0
            original = Int(buffer.uint32(8, bigEndian: bigEndian))
            included = min(original, length &- 16)
            dataOffset = 12
        }
        guard interfaceID < interfaces.count else {
            throw corrupt("packet names interface \(interfaceID), only \(interfaces.count) described", at: start)
        }
        let interface = interfaces[interfaceID]
        guard interface.snapLength == 0 || included <= interface.snapLength else {
            throw corrupt("captured length \(included) exceeds the interface's snapshot length \(interface.snapLength)", at: start)
        }
        guard let linkType = interface.linkType else {
            throw CaptureError(.unsupportedLinkType(UInt32(interface.rawLinkType)), recordIndex: recordCount, byteOffset: start)
        }
        guard let timestamp = interface.microseconds(ticks) else {
            throw corrupt("timestamp \(ticks) at if_tsresol \(interface.resolutionText)"
                          + (interface.offsetSeconds == 0 ? "" : " with if_tsoffset \(interface.offsetSeconds) s")
                          + " does not fit microseconds since 1970 in 64 bits", at: start)
        }
        return try linkTypeRecord(linkType, dataOffset: dataOffset, included: included, original: original,
                                  timestamp: timestamp, recordStart: start)
    }
}
