import Capture
import CaptureTestSupport
import FixtureTestSupport
import HCI
import Testing

/// A damaged capture yields every good record before the damage, then one typed error
/// naming the record index and byte offset; nothing traps or hangs.
@Suite struct CorruptionTests {
    static let formats: [CaptureFormat] = [
        .btsnoop(.hciUART), .btsnoop(.linuxMonitor), .pcap(.bluetoothHCIH4WithPHDR), .pcapng(.bluetoothLinuxMonitor),
    ]

    /// Reads until the end or an error; returns the records and the error.
    func drain(_ bytes: [UInt8]) -> ([CaptureRecord], CaptureError?) {
        var records: [CaptureRecord] = []
        do {
            var reader = try CaptureReader(bytes: bytes)
            while let r = try reader.next() { records.append(r) }
            // After the end, the reader stays ended.
            #expect(try reader.next() == nil)
            return (records, nil)
        } catch {
            return (records, error)
        }
    }

    @Test(arguments: formats)
    func truncationAtEveryByte(_ format: CaptureFormat) throws {
        let (_, source) = try readAll(try Fixtures.bytes("h4_rawperipheral_external.btsnoop"))
        let file = try writeAll(source, as: format)
        let (_, full) = try readAll(file)
        let offsets = full.map(\.byteOffset)
        let headerEnd = Int(offsets[0])
        let boundaries = Set(offsets.map { Int($0) } + [file.count])
        for cut in 0..<file.count {
            let (records, error) = drain(Array(file[..<cut]))
            if cut < headerEnd {
                #expect(records.isEmpty, "cut at \(cut)")
                // A pcapng file may legitimately end after its Section Header Block.
                if case .pcapng = format, cut == 28 { #expect(error == nil); continue }
                #expect(error != nil, "cut at \(cut) inside the file header")
                continue
            }
            // Records wholly inside the cut survive, unchanged.
            let complete = offsets.indices.filter { i in (i + 1 < offsets.count ? Int(offsets[i + 1]) : file.count) <= cut }.count
            #expect(records.map(RecordContent.init) == full.prefix(complete).map(RecordContent.init), "cut at \(cut)")
            if boundaries.contains(cut) {
                #expect(error == nil, "cut at \(cut) falls between records")
                continue
            }
            let e = try #require(error, "cut at \(cut) must report damage")
            #expect(e.recordIndex == complete, "cut at \(cut): error names record \(String(describing: e.recordIndex))")
            #expect(e.byteOffset == offsets[complete], "cut at \(cut): error offset \(e.byteOffset)")
            guard case .truncatedRecord = e.reason else {
                Issue.record("cut at \(cut): \(e)")
                continue
            }
        }
    }

    @Test func oversizedRecordLength() throws {
        var file = try Fixtures.bytes("inproc_mtu185_central.btsnoop")
        let (_, full) = try readAll(file)
        let victim = full[10]
        // Included length of record 10 becomes 0x7FFFFFFF.
        let at = Int(victim.byteOffset) + 4
        file[at] = 0x7F; file[at + 1] = 0xFF; file[at + 2] = 0xFF; file[at + 3] = 0xFF
        let (records, error) = drain(file)
        #expect(records.count == 10)
        let e = try #require(error)
        #expect(e.recordIndex == 10)
        #expect(e.byteOffset == victim.byteOffset)
        #expect(e.reason == .recordTooLong(length: 0x7FFF_FFFF, limit: 1 << 20))
        #expect(e.description.contains("record 10 at byte offset \(victim.byteOffset)"))
    }

    @Test func badHeaders() {
        #expect(drain([]).1?.reason == .unknownFormat)
        #expect(drain(Array("not a capture at all".utf8)).1?.reason == .unknownFormat)
        var wrongVersion = Array("btsnoop".utf8) + [0, 0, 0, 0, 2, 0, 0, 0x03, 0xEA]
        #expect(drain(wrongVersion).1?.reason == .unsupportedVersion(major: 2, minor: 0))
        wrongVersion[11] = 1
        wrongVersion[15] = 0xEB // datalink 1003 (BCSP)
        #expect(drain(wrongVersion).1?.reason == .unsupportedLinkType(1003))
        #expect(drain(Array("btsnoop".utf8) + [0, 0, 0]).1?.reason == .truncatedHeader(needed: 16, available: 10))
    }

    @Test func pcapngBlockDamage() throws {
        let (_, source) = try readAll(try Fixtures.bytes("h4_rawcentral_external.btsnoop"))
        var file = try writeAll(source, as: .pcapng(.bluetoothHCIH4WithPHDR))
        let (_, full) = try readAll(file)
        // Break record 5's trailing length copy.
        let start = Int(full[5].byteOffset)
        let length = Int(UInt32(file[start + 4]) << 24 | UInt32(file[start + 5]) << 16 | UInt32(file[start + 6]) << 8 | UInt32(file[start + 7]))
        file[start + length - 1] ^= 0xFF
        let (records, error) = drain(file)
        #expect(records.count == 5)
        #expect(error?.recordIndex == 5)
        #expect(error?.byteOffset == full[5].byteOffset)
        // A packet naming an interface that was never described.
        file[start + length - 1] ^= 0xFF
        file[start + 11] = 7
        let (records2, error2) = drain(file)
        #expect(records2.count == 5)
        guard case .invalidRecord = error2?.reason else {
            Issue.record("expected invalidRecord, got \(String(describing: error2))")
            return
        }
    }

    /// Random byte flips and cuts in every fixture: the whole pipeline must end, without
    /// trapping, in a result or a typed error.
    @Test(arguments: Fixtures.captures)
    func randomDamageNeverTraps(_ name: String) throws {
        let original = try Fixtures.bytes(name)
        var rng = SplitMix64(seed: 0xA77E_0005)
        for _ in 0..<200 {
            var bytes = original
            for _ in 0..<(1 + Int(rng.next() % 8)) {
                let at = Int(rng.next() % UInt64(bytes.count))
                bytes[at] = UInt8(truncatingIfNeeded: rng.next())
            }
            if rng.next() % 4 == 0 { bytes = Array(bytes.prefix(Int(rng.next() % UInt64(bytes.count)))) }
            do {
                var extractor = ATTPDUExtractor(reader: try CaptureReader(bytes: bytes))
                var count = 0
                while let _ = try extractor.next() { count += 1 }
                #expect(count <= 10_000)
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
    }
}

/// A small deterministic generator, so failures reproduce.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
