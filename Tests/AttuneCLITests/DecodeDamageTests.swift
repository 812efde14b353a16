import Capture
import Foundation
import HCI
import Testing

/// `attune decode` of records that cannot be true: the records before print, then the
/// error names the record.
@Suite struct DecodeDamageTests {
    @Test func aTimestampOfAllOnesIsAnErrorAtItsRecord() async throws {
        let path = AttuneProcess.temporaryFile(".btsnoop")
        defer { unlink(path) }
        var writer = try CaptureWriter(output: MemoryOutput(), format: .btsnoop(.hciUART))
        for (i, pdu) in [[0x0A, 0x03, 0x00], [0x0B, 0x48], [0x0A, 0x05, 0x00]].enumerated() as EnumeratedSequence<[[UInt8]]> {
            for r in SynthesizedHCI.attPDU(pdu, handle: 0x40, direction: i % 2 == 0 ? .received : .sent,
                                            at: 1_750_000_000_000_000 + Int64(i)) { try writer.write(r) }
        }
        var bytes = try writer.finish().bytes
        // Record 2's timestamp: 16-byte file header, then two records of 24 + 1 + 4 + 4 + PDU bytes.
        let at = 16 + (24 + 9 + 3) + (24 + 9 + 2) + 16
        bytes.replaceSubrange(at..<at + 8, with: [UInt8](repeating: 0xFF, count: 8))
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let run = try await AttuneProcess.run(["decode", path])
        #expect(run.status == 1)
        #expect(run.stdoutLines.count == 2, "\(run.stdout)")
        #expect(!run.stdout.contains("-62168256000"))
        #expect(run.stderr.contains("record 2") && run.stderr.contains("outside the btsnoop range"), "\(run.stderr)")
    }
}
