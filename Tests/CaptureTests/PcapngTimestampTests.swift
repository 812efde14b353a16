import Capture
import Testing

/// pcapng timestamps as the spec defines them: `if_tsresol` (MSB clear: 10^-n seconds,
/// set: 2^-n) scales each interface's 64-bit counts exactly, whatever the resolution,
/// `if_tsoffset` adds its seconds to every timestamp, and a timestamp that does not fit
/// microseconds since 1970 is an error naming its record and offset, never a wrapped value.
@Suite struct PcapngTimestampTests {
    /// One option of an Interface Description Block: code, length, value padded to 4 bytes.
    static func option(_ code: UInt16, _ value: [UInt8]) -> [UInt8] {
        le16(code) + le16(UInt16(value.count)) + value + [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
    }

    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) } }
    static func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) } }

    static func block(_ type: UInt32, _ body: [UInt8]) -> [UInt8] {
        let length = UInt32(12 + body.count)
        return le32(type) + le32(length) + body + le32(length)
    }

    /// A little-endian pcapng file: one H4 interface with `options`, then one Enhanced
    /// Packet Block (an HCI Reset's Command Complete) per timestamp.
    static func capture(options: [UInt8], timestamps: [UInt64]) -> [UInt8] {
        let section = block(0x0A0D_0D0A, le32(0x1A2B_3C4D) + le16(1) + le16(0) + le64(UInt64.max))
        let interface = block(1, le16(201) + le16(0) + le32(0) + options + (options.isEmpty ? [] : option(0, [])))
        let packet: [UInt8] = [0, 0, 0, 1, 0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
        let padded = packet + [UInt8](repeating: 0, count: (4 - packet.count % 4) % 4)
        let packets = timestamps.flatMap { ts in
            block(6, le32(0) + le32(UInt32(ts >> 32)) + le32(UInt32(ts & 0xFFFF_FFFF))
                + le32(UInt32(packet.count)) + le32(UInt32(packet.count)) + padded)
        }
        return section + interface + packets
    }

    /// The timestamps read, and the error that ended the file.
    static func read(_ bytes: [UInt8]) -> (timestamps: [Int64], error: CaptureError?) {
        var out: [Int64] = []
        do {
            var reader = try CaptureReader(bytes: bytes)
            while let record = try reader.next() { out.append(record.timestamp) }
        } catch {
            return (out, error)
        }
        return (out, nil)
    }

    static let tsresol: UInt16 = 9, tsoffset: UInt16 = 14

    @Test(arguments: [
        // Nanoseconds (10^-9) and the default microseconds.
        (UInt8(9), UInt64(1_700_000_000_123_456_789), Int64(1_700_000_000_123_456)),
        (UInt8(6), 1_700_000_000_123_456, 1_700_000_000_123_456),
        // Milliseconds and seconds scale up.
        (UInt8(3), 1_700_000_000_123, 1_700_000_000_123_000),
        (UInt8(0), 1_700_000_000, 1_700_000_000_000_000),
        // 2^-10 s: 1/1024 s is 976.5625 µs, so 512 units are exactly half a second.
        (0x8A, 1024 * 1_700_000_000 + 512, 1_700_000_000_500_000),
        // 2^-63 s: 2^63 + 2^62 units are 1.5 s.
        (0xBF, (1 << 63) + (1 << 62), 1_500_000),
        // Finer than a 64-bit count can span a microsecond in: every timestamp is 0 µs,
        // not the count read at a clamped resolution.
        (0x1E, 10_000_000_000_000_000_000, 0),
        (0xFF, 1 << 63, 0),
        // 10^-19 s, the finest power of ten whose units per second fit 64 bits.
        (19, 10_000_000_000_000_000_000, 1_000_000),
        (20, 10_000_000_000_000_000_000, 100_000),
    ] as [(UInt8, UInt64, Int64)])
    func resolutionsScaleExactly(_ resolution: UInt8, _ ticks: UInt64, _ micros: Int64) {
        let (timestamps, error) = Self.read(Self.capture(options: Self.option(Self.tsresol, [resolution]), timestamps: [ticks]))
        #expect(error == nil, "\(String(describing: error))")
        #expect(timestamps == [micros])
    }

    @Test func theOffsetAddsItsSecondsToEveryTimestamp() {
        let options = Self.option(Self.tsresol, [9]) + Self.option(Self.tsoffset, Self.le64(1_600_000_000))
        let (timestamps, error) = Self.read(Self.capture(options: options, timestamps: [5_000_000_001, 6_500_000_000]))
        #expect(error == nil, "\(String(describing: error))")
        #expect(timestamps == [1_600_000_005_000_000, 1_600_000_006_500_000])
        // Signed: a negative offset moves timestamps back.
        let back = Self.read(Self.capture(options: Self.option(Self.tsoffset, Self.le64(UInt64(bitPattern: -10))), timestamps: [15_000_000]))
        #expect(back.timestamps == [5_000_000] && back.error == nil)
    }

    /// An offset can put a packet before 1970; no format writes that back wrapped.
    @Test func aTimestampBefore1970IsRefusedByEveryWriter() throws {
        let options = Self.option(Self.tsoffset, Self.le64(UInt64(bitPattern: -10)))
        var reader = try CaptureReader(bytes: Self.capture(options: options, timestamps: [5_000_000]))
        let record = try #require(try reader.next())
        #expect(record.timestamp == -5_000_000)
        for format in [CaptureFormat.pcapng(.bluetoothHCIH4WithPHDR), .pcap(.bluetoothHCIH4WithPHDR), .btsnoop(.hciUART)] {
            var writer = try CaptureWriter(output: MemoryOutput(), format: format)
            #expect(!writer.canWrite(record), "\(format)")
            #expect(throws: CaptureError.self) { try writer.write(record) }
        }
    }

    /// Seconds that do not fit microseconds, and offsets that push past them, are errors
    /// at the record (whose byte offset and index they give), after the records before.
    @Test(arguments: [
        (Self.option(Self.tsresol, [0]), UInt64(1) << 62, 1),
        (Self.option(Self.tsresol, [0]), UInt64.max, 1),
        (Self.option(Self.tsresol, [6]), UInt64.max, 1),
        (Self.option(Self.tsoffset, Self.le64(9_223_372_036_854)), 1_000_000, 1),
        // Offsets that no timestamp survives: the first packet already fails.
        (Self.option(Self.tsoffset, Self.le64(UInt64(Int64.max))), 0, 0),
        (Self.option(Self.tsoffset, Self.le64(UInt64(bitPattern: Int64.min))), 0, 0),
    ] as [([UInt8], UInt64, Int)])
    func overflowIsAnErrorNotAWrap(_ options: [UInt8], _ ticks: UInt64, _ good: Int) throws {
        let bytes = Self.capture(options: options, timestamps: [1, ticks])
        let (timestamps, error) = Self.read(bytes)
        #expect(timestamps.count == good)
        let failure = try #require(error)
        #expect(failure.recordIndex == good)
        #expect(failure.byteOffset == Int64(bytes.count - 44 * (2 - good)), "the packet block at fault")
        guard case .invalidRecord(let text) = failure.reason else { Issue.record("\(failure)"); return }
        #expect(text.contains("timestamp") && text.contains("does not fit"), "\(text)")
    }

    @Test(arguments: [
        (Self.tsresol, [UInt8]()), (Self.tsresol, [6, 0]), (Self.tsoffset, [0, 0, 0, 0]), (Self.tsoffset, [UInt8](repeating: 0, count: 9)),
    ] as [(UInt16, [UInt8])])
    func optionsOfTheWrongLengthAreErrors(_ code: UInt16, _ value: [UInt8]) throws {
        let (timestamps, error) = Self.read(Self.capture(options: Self.option(code, value), timestamps: [1]))
        #expect(timestamps.isEmpty)
        let failure = try #require(error)
        #expect(failure.byteOffset == 28, "the interface block")
        #expect("\(failure)".contains(code == Self.tsresol ? "if_tsresol" : "if_tsoffset"), "\(failure)")
    }
}
