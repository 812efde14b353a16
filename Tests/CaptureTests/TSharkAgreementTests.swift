import ATT
import Capture
import CaptureTestSupport
import FixtureTestSupport
import Foundation
import HCI
import Testing
import WaitTestSupport

/// Every fixture decodes to the same ATT PDUs as tshark: same count, same frames, same
/// opcodes, same bytes, and the handles and values tshark reports. (That tshark's handle
/// lists equal ours once responses are paired with their requests is Replay's to check:
/// ReplayTests' `TSharkTransactionHandlesTests`.)
@Suite struct TSharkAgreementTests {
    static let fixtures = Fixtures.captures

    @Test(arguments: fixtures)
    func attPDUsMatchTShark(_ name: String) async throws {
        // Off the cooperative pool: tshark runs and long loops would hold one of its threads.
        try await offPool { [self] in
            try #require(TShark.path != nil, "tshark is not installed (.ci/run installs it)")
            let path = Fixtures.capturePath(name)
            let expected = try TShark.attPDUs(path)
            #expect(!expected.isEmpty, "tshark found no ATT PDUs in \(name)")
            let ours = try decodeAll(path)
            try compare(ours, expected, name)
            print("tshark agreement: \(name): \(ours.count) ATT PDUs, tshark \(expected.count)")
        }
    }

    /// The same agreement after converting captures to every format we write, so the
    /// writers produce files tshark reads the same way. Two fixtures cover both source
    /// formats and the most fragmented traffic; tshark runs twice per format, so all eight
    /// would make the suite slow for no extra coverage.
    @Test(arguments: ["inproc_mtu185_peripheral.btsnoop", "kernel/bluez_hr_mtu517.btsnoop"])
    func convertedCapturesMatchTShark(_ name: String) async throws {
        // Off the cooperative pool: tshark runs and long loops would hold one of its threads.
        try await offPool { [self] in
            try #require(TShark.path != nil, "tshark is not installed (.ci/run installs it)")
            let expected = try TShark.attPDUs(Fixtures.capturePath(name))
            var reader = try CaptureReader(path: Fixtures.capturePath(name))
            let monitor = reader.format == .btsnoop(.linuxMonitor)
            var records: [CaptureRecord] = []
            while let r = try reader.next() { records.append(r) }
            let formats: [CaptureFormat] = monitor
                ? [.btsnoop(.linuxMonitor), .pcap(.bluetoothLinuxMonitor), .pcapng(.bluetoothLinuxMonitor)]
                : [.btsnoop(.hciUART), .btsnoop(.hciUnencapsulated), .btsnoop(.linuxMonitor), .pcap(.bluetoothHCIH4WithPHDR),
                   .pcap(.bluetoothLinuxMonitor), .pcapng(.bluetoothHCIH4WithPHDR), .pcapng(.bluetoothLinuxMonitor)]
            for format in formats {
                let out = temporaryPath("\(name.replacingOccurrences(of: "/", with: "_")).\(format.description.replacingOccurrences(of: " ", with: "-"))")
                var writer = try CaptureWriter(path: out, format: format)
                for r in records { try writer.write(r) }
                try writer.finish()
                let converted = try TShark.attPDUs(out)
                #expect(converted.count == expected.count, "\(name) as \(format): tshark sees \(converted.count) ATT PDUs, expected \(expected.count)")
                #expect(converted.map(\.raw) == expected.map(\.raw), "\(name) as \(format): tshark's ATT bytes differ")
                let ours = try decodeAll(out)
                try compare(ours, converted, "\(name) as \(format)")
            }
        }
    }

    func decodeAll(_ path: String) throws -> [CapturedATTPDU] {
        var extractor = try ATTPDUExtractor(path: path)
        var pdus: [CapturedATTPDU] = []
        while let pdu = try extractor.next() { pdus.append(pdu) }
        #expect(extractor.drops == 0, "reassembly drops: \(extractor.problems)")
        #expect(extractor.malformed == 0, "malformed packets: \(extractor.problems)")
        return pdus
    }

    func compare(_ ours: [CapturedATTPDU], _ expected: [TSharkATT], _ name: String) throws {
        #expect(ours.count == expected.count, "\(name): \(ours.count) ATT PDUs, tshark \(expected.count)")
        for (mine, theirs) in zip(ours, expected) {
            let place = "\(name) frame \(theirs.frame)"
            #expect(mine.frame.recordIndex + 1 == theirs.frame, "\(place): we completed the PDU at record \(mine.frame.recordIndex + 1)")
            #expect(mine.opcode == theirs.opcode, "\(place): opcode")
            #expect(mine.frame.timestamp == theirs.microseconds, "\(place): timestamp")
            #expect(mine.frame.connectionHandle == theirs.connectionHandle, "\(place): connection handle")
            #expect(mine.frame.controller == theirs.controller, "\(place): controller index")
            #expect(theirs.sent != nil && (mine.frame.direction == .sent) == theirs.sent, "\(place): direction")
            #expect(!theirs.raw.isEmpty && hexString(mine.bytes) == theirs.raw, "\(place): bytes")
            let pdu: ATTPDU
            switch mine.pdu {
            case let .success(p): pdu = p
            case let .failure(error):
                Issue.record("\(place): our codec rejects the PDU: \(error)")
                continue
            }
            let handles = explicitHandles(pdu)
            #expect(Set(handles).isSubset(of: Set(theirs.handles)), "\(place): handles \(handles) vs tshark \(theirs.handles)")
            if let value = attributeValue(pdu), !theirs.value.isEmpty {
                #expect(hexString(value) == theirs.value, "\(place): value")
            }
        }
    }
}
