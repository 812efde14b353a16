import HCI

/// Writes records as btsnoop (datalinks 1001, 1002, 2001), pcap or pcapng (link types 201
/// and 254). The file header is written on init; call ``finish()`` to flush.
///
/// A record the chosen format cannot carry (a monitor note in an H4 file, a non-zero
/// controller index outside the monitor formats, a timestamp outside its range) is refused with
/// ``CaptureError/Reason/unrepresentable(_:)``; ``canWrite(_:)`` says so in advance.
public struct CaptureWriter<Output: CaptureOutput> {
    public let format: CaptureFormat
    public private(set) var output: Output
    public private(set) var recordCount = 0
    var scratch: [UInt8] = []
    var offset: Int64 = 0

    public init(output: Output, format: CaptureFormat) throws(CaptureError) {
        self.output = output
        self.format = format
        scratch.reserveCapacity(1 << 16)
        switch format {
        case let .btsnoop(datalink):
            scratch.append(contentsOf: Array("btsnoop".utf8) + [0])
            appendBE32(1)
            appendBE32(datalink.rawValue)
        case let .pcap(linkType):
            appendBE32(0xA1B2_C3D4) // big-endian, microseconds
            appendBE16(2)
            appendBE16(4)
            appendBE32(0) // thiszone
            appendBE32(0) // sigfigs
            appendBE32(0xFFFF) // snaplen
            appendBE32(linkType.rawValue)
        case let .pcapng(linkType):
            // Section Header Block, big-endian, section length unknown (-1).
            appendBE32(0x0A0D_0D0A)
            appendBE32(28)
            appendBE32(0x1A2B_3C4D)
            appendBE16(1)
            appendBE16(0)
            appendBE32(0xFFFF_FFFF)
            appendBE32(0xFFFF_FFFF)
            appendBE32(28)
            // Interface Description Block: link type, snaplen, no options (microseconds).
            appendBE32(1)
            appendBE32(20)
            appendBE16(UInt16(linkType.rawValue))
            appendBE16(0)
            appendBE32(0)
            appendBE32(20)
        }
        try emit()
    }

    /// Whether ``write(_:)`` accepts the record.
    public func canWrite(_ record: CaptureRecord) -> Bool { refusal(record) == nil }

    /// The timestamps (microseconds since 1970) the format can carry: btsnoop's range
    /// through year 9999, pcap's 32-bit seconds, pcapng's unsigned 64-bit microseconds.
    var timestamps: ClosedRange<Int64> {
        switch format {
        case .btsnoop: 0...(BTSnoopTime.timestamps.upperBound - BTSnoopTime.epochOffset)
        case .pcap: 0...(Int64(UInt32.max) * 1_000_000 + 999_999)
        case .pcapng: 0...Int64.max
        }
    }

    func refusal(_ record: CaptureRecord) -> String? {
        // A timestamp the format cannot hold would be written wrapped, and read back as
        // another time or refused (a pcapng if_tsoffset can put one before 1970).
        guard timestamps.contains(record.timestamp) else {
            return "timestamp \(record.timestamp) µs is outside the \(timestamps.lowerBound)…\(timestamps.upperBound) µs \(format) holds"
        }
        let monitor: Bool
        switch format {
        case let .btsnoop(d): monitor = d == .linuxMonitor
        case let .pcap(l), let .pcapng(l): monitor = l == .bluetoothLinuxMonitor
        }
        if monitor { return nil }
        if record.controller != 0 { return "controller index \(record.controller) needs a Linux monitor format" }
        switch record.kind {
        case .monitor: return "monitor records need a Linux monitor format"
        case .unknownH4 where format == .btsnoop(.hciUnencapsulated):
            return "unknown H4 packet types cannot be written unencapsulated"
        case let .hci(type) where format == .btsnoop(.hciUnencapsulated):
            switch (type, record.direction) {
            case (.command, .sent), (.event, .received), (.aclData, _): return nil
            default: return "\(type) \(record.direction) cannot be written unencapsulated"
            }
        default: return nil
        }
    }

    /// Appends one record.
    public mutating func write(_ record: CaptureRecord) throws(CaptureError) {
        if let reason = refusal(record) {
            throw CaptureError(.unrepresentable(reason), recordIndex: recordCount, byteOffset: offset)
        }
        let payload = record.payload
        switch format {
        case let .btsnoop(datalink):
            var flags = UInt32(record.direction.rawValue)
            var prefix: UInt8?
            switch datalink {
            case .hciUART:
                prefix = h4Indicator(record.kind)
                if case let .hci(type) = record.kind, type == .command || type == .event { flags |= 2 }
            case .hciUnencapsulated:
                if case let .hci(type) = record.kind, type == .command || type == .event { flags |= 2 }
            case .linuxMonitor:
                flags = UInt32(record.controller) << 16 | UInt32(monitorOpcode(record))
            }
            let extra = prefix == nil ? 0 : 1
            appendBE32(UInt32(truncatingIfNeeded: record.originalLength + extra))
            appendBE32(UInt32(truncatingIfNeeded: payload.count + extra))
            appendBE32(flags)
            appendBE32(record.drops)
            appendBE64(UInt64(bitPattern: record.timestamp &+ BTSnoopTime.epochOffset))
            if let prefix { scratch.append(prefix) }
        case let .pcap(linkType):
            let extra = linkType == .bluetoothLinuxMonitor ? 4 : 5
            let (seconds, micros) = splitTimestamp(record.timestamp)
            appendBE32(seconds)
            appendBE32(micros)
            appendBE32(UInt32(truncatingIfNeeded: payload.count + extra))
            appendBE32(UInt32(truncatingIfNeeded: record.originalLength + extra))
            appendPseudoHeader(linkType, record)
        case let .pcapng(linkType):
            let extra = linkType == .bluetoothLinuxMonitor ? 4 : 5
            let captured = payload.count + extra
            let padded = (captured + 3) & ~3
            let total = 32 + padded
            let ticks = UInt64(bitPattern: record.timestamp)
            appendBE32(6)
            appendBE32(UInt32(truncatingIfNeeded: total))
            appendBE32(0)
            appendBE32(UInt32(truncatingIfNeeded: ticks >> 32))
            appendBE32(UInt32(truncatingIfNeeded: ticks))
            appendBE32(UInt32(truncatingIfNeeded: captured))
            appendBE32(UInt32(truncatingIfNeeded: record.originalLength + extra))
            appendPseudoHeader(linkType, record)
            scratch.append(contentsOf: payload)
            scratch.append(contentsOf: repeatElement(0, count: padded - captured))
            appendBE32(UInt32(truncatingIfNeeded: total))
            try emit()
            recordCount += 1
            return
        }
        scratch.append(contentsOf: payload)
        try emit()
        recordCount += 1
    }

    /// Flushes buffered bytes and returns the output.
    @discardableResult
    public mutating func finish() throws(CaptureError) -> Output {
        try output.flush()
        return output
    }

    func h4Indicator(_ kind: CaptureRecord.Kind) -> UInt8 {
        switch kind {
        case let .hci(type): return type.rawValue
        case let .unknownH4(byte): return byte
        case .monitor: return 0
        }
    }

    func monitorOpcode(_ record: CaptureRecord) -> UInt16 {
        switch record.kind {
        case let .hci(type): return MonitorOpcode.opcode(for: type, direction: record.direction)
        case let .monitor(opcode): return opcode
        case .unknownH4: return 0xFFFF
        }
    }

    func splitTimestamp(_ micros: Int64) -> (UInt32, UInt32) {
        let seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
        return (UInt32(truncatingIfNeeded: seconds), UInt32(truncatingIfNeeded: micros - seconds * 1_000_000))
    }

    mutating func appendPseudoHeader(_ linkType: PcapLinkType, _ record: CaptureRecord) {
        switch linkType {
        case .bluetoothHCIH4WithPHDR:
            appendBE32(UInt32(record.direction.rawValue))
            scratch.append(h4Indicator(record.kind))
        case .bluetoothLinuxMonitor:
            appendBE16(record.controller)
            appendBE16(monitorOpcode(record))
        }
    }

    mutating func emit() throws(CaptureError) {
        let result = scratch.withUnsafeBytes { raw -> Result<Void, CaptureError> in
            do throws(CaptureError) { try output.write(raw); return .success(()) } catch { return .failure(error) }
        }
        offset += Int64(scratch.count)
        scratch.removeAll(keepingCapacity: true)
        try result.get()
    }

    mutating func appendBE16(_ v: UInt16) {
        scratch.append(UInt8(truncatingIfNeeded: v >> 8))
        scratch.append(UInt8(truncatingIfNeeded: v))
    }

    mutating func appendBE32(_ v: UInt32) {
        appendBE16(UInt16(truncatingIfNeeded: v >> 16))
        appendBE16(UInt16(truncatingIfNeeded: v))
    }

    mutating func appendBE64(_ v: UInt64) {
        appendBE32(UInt32(truncatingIfNeeded: v >> 32))
        appendBE32(UInt32(truncatingIfNeeded: v))
    }
}

extension CaptureWriter where Output == FileOutput {
    /// Creates (or truncates) a capture file and writes its header.
    public init(path: String, format: CaptureFormat) throws(CaptureError) {
        try self.init(output: try FileOutput(path: path), format: format)
    }
}
