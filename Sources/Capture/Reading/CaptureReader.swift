import HCI

/// Reads a btsnoop, pcap or pcapng capture one record at a time with bounded memory.
///
/// The format is recognised from the file's first bytes. Records come out in file order.
/// When the file is damaged, every record before the damage is returned, then ``next()``
/// throws a ``CaptureError`` naming the record index and byte offset, and after that
/// returns nil.
public struct CaptureReader {
    /// The file's format; for pcapng, the link type of its first interface.
    public internal(set) var format: CaptureFormat
    /// Records returned so far.
    public internal(set) var recordCount = 0
    /// The longest record accepted; longer ones are reported as corrupt.
    public let maximumRecordLength: Int

    var buffer: ChunkedBuffer
    var finished = false
    // pcap and pcapng state.
    var bigEndian = false
    var nanoseconds = false
    /// The pcap header's snapshot length: no record includes more (0: no limit).
    var snapLength = 0
    var interfaces: [PcapngInterface] = []

    /// Reads and checks the file header.
    /// - Parameter maximumRecordLength: defaults to 1 MiB, far above any HCI packet.
    public init(input: some CaptureInput, maximumRecordLength: Int = 1 << 20, chunkSize: Int = 256 << 10) throws(CaptureError) {
        self.maximumRecordLength = maximumRecordLength
        buffer = ChunkedBuffer(input: input, chunkSize: chunkSize, limit: maximumRecordLength &+ 64)
        format = .btsnoop(.hciUART)
        let have = try Self.wrap(nil, 0) { () throws(CaptureError) in try buffer.fill(4) }
        guard have >= 4 else { throw CaptureError(.unknownFormat, recordIndex: nil, byteOffset: 0) }
        switch buffer.uint32BE(0) {
        case 0x6274_736E: try readBTSnoopHeader()
        case 0xA1B2_C3D4, 0xD4C3_B2A1, 0xA1B2_3C4D, 0x4D3C_B2A1: try readPcapHeader()
        case 0x0A0D_0D0A: try readPcapngHeader()
        default: throw CaptureError(.unknownFormat, recordIndex: nil, byteOffset: 0)
        }
    }

    /// The next record, or nil at the end of the file.
    public mutating func next() throws(CaptureError) -> CaptureRecord? {
        guard !finished else { return nil }
        do {
            let record: CaptureRecord?
            switch format {
            case let .btsnoop(datalink): record = try nextBTSnoop(datalink)
            case let .pcap(linkType): record = try nextPcap(linkType)
            case .pcapng: record = try nextPcapng()
            }
            if record == nil { finished = true } else { recordCount &+= 1 }
            return record
        } catch {
            finished = true
            throw error
        }
    }

    /// Runs an input read, filling in the position of a read error.
    @inline(__always)
    static func wrap<T>(_ index: Int?, _ offset: Int64, _ body: () throws(CaptureError) -> T) throws(CaptureError) -> T {
        do {
            return try body()
        } catch {
            var located = error
            located.recordIndex = index
            located.byteOffset = offset
            throw located
        }
    }

    /// Makes `count` bytes of the current record available, or throws a truncation error.
    @inline(__always)
    mutating func require(_ count: Int, recordStart: Int64) throws(CaptureError) {
        if buffer.available >= count { return }
        let got = try Self.wrap(recordCount, recordStart) { () throws(CaptureError) in try buffer.fill(count) }
        guard got >= count else {
            throw CaptureError(.truncatedRecord(needed: count, available: got), recordIndex: recordCount,
                               byteOffset: recordStart)
        }
    }

    /// True at a clean end of file (no bytes left before a record header).
    @inline(__always)
    mutating func atCleanEnd() throws(CaptureError) -> Bool {
        if buffer.available > 0 { return false }
        let position = buffer.position
        return try Self.wrap(recordCount, position) { () throws(CaptureError) in try buffer.fill(1) } == 0
    }

    func corrupt(_ text: String, at offset: Int64) -> CaptureError {
        CaptureError(.invalidRecord(text), recordIndex: recordCount, byteOffset: offset)
    }

    /// Splits an H4 record (indicator byte, then packet) into a kind and payload.
    @inline(__always)
    func h4Kind(_ indicator: UInt8) -> CaptureRecord.Kind {
        if let type = H4PacketType(rawValue: indicator) { return .hci(type) }
        return .unknownH4(indicator)
    }
}

extension CaptureReader {
    /// Opens a capture file.
    public init(path: String, maximumRecordLength: Int = 1 << 20) throws(CaptureError) {
        try self.init(input: try FileInput(path: path), maximumRecordLength: maximumRecordLength)
    }
}

extension CaptureReader {
    /// Reads a capture held in memory.
    public init(bytes: [UInt8], maximumRecordLength: Int = 1 << 20) throws(CaptureError) {
        try self.init(input: MemoryInput(bytes), maximumRecordLength: maximumRecordLength, chunkSize: 4096)
    }
}
