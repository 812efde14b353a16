import ATT
import Capture
import CaptureTestSupport
import FixtureTestSupport
import Testing

/// Records whose fields cannot be true are reported as errors naming the record, and the
/// records before them still come out: a btsnoop timestamp outside the range a capture
/// can hold, an included length above the original length or the snapshot length.
@Suite struct RecordLengthAndTimeTests {
    /// The first records of a fixture, written in `format`.
    static func file(_ format: CaptureFormat, records count: Int = 5) throws -> (bytes: [UInt8], records: [CaptureRecord]) {
        let (_, all) = try readAll(try Fixtures.bytes("h4_rawcentral_bumble.btsnoop"))
        let records = Array(all.prefix(count))
        return (try writeAll(records, as: format), records)
    }

    /// Reads every record; returns those read and the error that ended the file.
    static func read(_ bytes: [UInt8]) -> (records: Int, error: CaptureError?) {
        var count = 0
        do {
            var reader = try CaptureReader(bytes: bytes)
            while try reader.next() != nil { count += 1 }
        } catch {
            return (count, error)
        }
        return (count, nil)
    }

    /// Offset of btsnoop record `index` (16-byte file header, 24-byte record headers).
    static func btsnoopOffset(_ bytes: [UInt8], record index: Int) -> Int {
        var offset = 16
        for _ in 0..<index {
            let included = bytes[offset + 4..<offset + 8].reduce(0) { $0 << 8 | Int($1) }
            offset += 24 + included
        }
        return offset
    }

    static func reason(_ error: CaptureError?) -> String {
        if case let .invalidRecord(text)? = error?.reason { return text }
        return "\(String(describing: error))"
    }

    @Test(arguments: [[UInt8](repeating: 0xFF, count: 8), [0, 0, 0, 0, 0, 0, 0, 0], [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]])
    func btsnoopTimestampOutsideItsRangeIsAnError(_ stamp: [UInt8]) throws {
        var (bytes, _) = try Self.file(.btsnoop(.hciUART))
        let at = Self.btsnoopOffset(bytes, record: 3) + 16
        bytes.replaceSubrange(at..<at + 8, with: stamp)
        let (count, error) = Self.read(bytes)
        #expect(count == 3)
        #expect(error?.recordIndex == 3)
        #expect(Self.reason(error).contains("outside the btsnoop range"), "\(String(describing: error))")
    }

    @Test func btsnoopIncludedAboveOriginalIsAnError() throws {
        var (bytes, _) = try Self.file(.btsnoop(.hciUART))
        let at = Self.btsnoopOffset(bytes, record: 2)
        // Original length 1: below the record's included length.
        bytes.replaceSubrange(at..<at + 4, with: [0, 0, 0, 1])
        let (count, error) = Self.read(bytes)
        #expect(count == 2)
        #expect(error?.recordIndex == 2)
        #expect(Self.reason(error).contains("exceeds the original length 1"), "\(String(describing: error))")
    }

    /// pcap: records after the 24-byte header, 16-byte record headers (big-endian, as written).
    static func pcapOffset(_ bytes: [UInt8], record index: Int) -> Int {
        var offset = 24
        for _ in 0..<index {
            let included = bytes[offset + 8..<offset + 12].reduce(0) { $0 << 8 | Int($1) }
            offset += 16 + included
        }
        return offset
    }

    @Test func pcapIncludedAboveOriginalIsAnError() throws {
        var (bytes, _) = try Self.file(.pcap(.bluetoothHCIH4WithPHDR))
        let at = Self.pcapOffset(bytes, record: 4)
        bytes.replaceSubrange(at + 12..<at + 16, with: [0, 0, 0, 2])
        let (count, error) = Self.read(bytes)
        #expect(count == 4)
        #expect(error?.recordIndex == 4)
        #expect(Self.reason(error).contains("exceeds the original length 2"), "\(String(describing: error))")
    }

    @Test func pcapIncludedAboveSnapLengthIsAnError() throws {
        var (bytes, _) = try Self.file(.pcap(.bluetoothHCIH4WithPHDR), records: 20)
        var lengths: [Int] = []
        for i in 0..<20 {
            let at = Self.pcapOffset(bytes, record: i)
            lengths.append(bytes[at + 8..<at + 12].reduce(0) { $0 << 8 | Int($1) })
        }
        // A snapshot length that the first records fit in and a later one exceeds.
        let first = try #require(lengths.indices.first { i in i > 0 && lengths[i] > lengths[..<i].max()! })
        let snap = lengths[..<first].max()!
        bytes.replaceSubrange(16..<20, with: [0, 0, UInt8(snap >> 8), UInt8(snap & 0xFF)])
        let (count, error) = Self.read(bytes)
        #expect(count == first)
        #expect(error?.recordIndex == first)
        #expect(Self.reason(error).contains("exceeds the snapshot length \(snap)"), "\(String(describing: error))")
    }

    @Test func pcapngCapturedAboveOriginalIsAnError() throws {
        var (bytes, _) = try Self.file(.pcapng(.bluetoothHCIH4WithPHDR))
        // Section header (28) and interface block (20), then Enhanced Packet Blocks.
        var at = 48
        for _ in 0..<1 { at += bytes[at + 4..<at + 8].reduce(0) { $0 << 8 | Int($1) } }
        bytes.replaceSubrange(at + 24..<at + 28, with: [0, 0, 0, 1])
        let (count, error) = Self.read(bytes)
        #expect(count == 1)
        #expect(error?.recordIndex == 1)
        #expect(Self.reason(error).contains("exceeds the original length 1"), "\(String(describing: error))")
    }

    @Test func decodingErrorsSayWhatTheyMean() {
        func error(_ bytes: [UInt8]) -> String {
            do { _ = try ATTPDU.decode(bytes[...]); return "" } catch { return error.description }
        }
        #expect(error([0xFF]) == "unknown opcode 0xff at byte offset 0")
        let length = error([0x09, 0x01])
        #expect(length.hasPrefix("invalid length 1 (expected at least 2) in Read By Type Response (0x09)"), "\(length)")
        #expect(error([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28, 0x00, 0x00]).hasPrefix("invalid attribute type length 4"))
    }
}
