import Capture
import CaptureTestSupport
import FixtureTestSupport
import HCI
import Testing

/// Read → write → read gives the same records in every format, and writing a fixture in
/// its own format reproduces it byte for byte.
@Suite struct RoundTripTests {
    static let fixtures = Fixtures.captures

    static let h4Formats: [CaptureFormat] = [
        .btsnoop(.hciUART), .btsnoop(.linuxMonitor), .pcap(.bluetoothHCIH4WithPHDR), .pcap(.bluetoothLinuxMonitor),
        .pcapng(.bluetoothHCIH4WithPHDR), .pcapng(.bluetoothLinuxMonitor),
    ]
    static let monitorFormats: [CaptureFormat] = [.btsnoop(.linuxMonitor), .pcap(.bluetoothLinuxMonitor), .pcapng(.bluetoothLinuxMonitor)]

    @Test(arguments: fixtures)
    func sameFormatIsByteIdentical(_ name: String) throws {
        let original = try Fixtures.bytes(name)
        let (format, records) = try readAll(original)
        #expect(!records.isEmpty)
        let rewritten = try writeAll(records, as: format)
        #expect(rewritten == original, "\(name): rewriting as \(format) changed the file")
    }

    @Test(arguments: fixtures)
    func everyFormatRoundTrips(_ name: String) throws {
        let (format, records) = try readAll(try Fixtures.bytes(name))
        let formats = format == .btsnoop(.linuxMonitor) ? Self.monitorFormats : Self.h4Formats
        for target in formats {
            let written = try writeAll(records, as: target)
            let (readFormat, back) = try readAll(written)
            #expect(readFormat == target)
            #expect(back.map(RecordContent.init) == records.map(RecordContent.init), "\(name) via \(target)")
            // And once more: the second write is byte-identical to the first.
            #expect(try writeAll(back, as: target) == written, "\(name) via \(target): second write differs")
        }
    }

    /// btsnoop 1001 carries commands, events and ACL without an H4 byte; the direction
    /// and command/event flags say which is which.
    @Test func unencapsulatedRoundTrip() throws {
        let (_, records) = try readAll(try Fixtures.bytes("inproc_mtu185_central.btsnoop"))
        let representable = records.filter { r in
            switch (r.kind, r.direction) {
            case (.hci(.command), .sent), (.hci(.event), .received), (.hci(.aclData), _): return true
            default: return false
            }
        }
        #expect(representable.count == records.count)
        let written = try writeAll(representable, as: .btsnoop(.hciUnencapsulated))
        let (format, back) = try readAll(written)
        #expect(format == .btsnoop(.hciUnencapsulated))
        #expect(back.map(RecordContent.init) == representable.map(RecordContent.init))
    }

    @Test func nonHCIRecordsNeedAMonitorFormat() throws {
        let (_, records) = try readAll(try Fixtures.bytes("kernel/bluez_hr_mtu517.btsnoop"))
        let notes = records.filter { if case .monitor = $0.kind { return true } else { return false } }
        #expect(!notes.isEmpty, "btmon captures hold New Index / Open Index / notes")
        var writer = try CaptureWriter(output: MemoryOutput(), format: .btsnoop(.hciUART))
        #expect(!writer.canWrite(notes[0]))
        #expect(throws: CaptureError.self) { try writer.write(notes[0]) }
    }

    /// pcap files in either byte order, with micro- or nanosecond timestamps, read alike.
    @Test func pcapByteOrderAndResolution() throws {
        let record = CaptureRecord(kind: .hci(.event), direction: .received, timestamp: 1_700_000_000_123_456,
                                   payload: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00][...])
        for (magic, nanos) in [([0xD4, 0xC3, 0xB2, 0xA1] as [UInt8], false), ([0x4D, 0x3C, 0xB2, 0xA1], true)] {
            // Little-endian header and record written by hand.
            var bytes = magic + [2, 0, 4, 0] + [UInt8](repeating: 0, count: 8) + [0xFF, 0xFF, 0, 0] + [201, 0, 0, 0]
            func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
            bytes += le32(1_700_000_000) + le32(nanos ? 123_456_789 : 123_456) + le32(11) + le32(11)
            bytes += [0, 0, 0, 1, 0x04] + record.payload
            let (format, records) = try readAll(bytes)
            #expect(format == .pcap(.bluetoothHCIH4WithPHDR))
            #expect(records.map(RecordContent.init) == [RecordContent(record)])
        }
    }
}
