import Capture
import Foundation
import HCI

/// What a session capture holds, read back by our own Capture module and by tshark.
struct SessionCapture {
    /// (sent by us, opcode) of every ATT PDU, in order, as our extractor sees them.
    var attune: [(sent: Bool, opcode: UInt8)] = []
    /// The same from tshark, or nil when tshark is not installed.
    var tshark: [(sent: Bool, opcode: UInt8)]?
    /// The first record's packet type and direction: a Reset command, sent.
    var firstRecordIsSentCommand = false
    var recordCount = 0

    init(path: String) throws {
        var reader = try CaptureReader(path: path)
        while let record = try reader.next() {
            if recordCount == 0 {
                firstRecordIsSentCommand = record.packetType == .command && record.direction == .sent
            }
            recordCount += 1
        }
        var extractor = try ATTPDUExtractor(path: path)
        while let pdu = try extractor.next() {
            attune.append((pdu.frame.direction == .sent, pdu.opcode ?? 0xFF))
        }
        tshark = try Self.tsharkATT(path)
    }

    private static func tsharkATT(_ path: String) throws -> [(sent: Bool, opcode: UInt8)]? {
        let tool = "/usr/bin/tshark"
        guard FileManager.default.isExecutableFile(atPath: tool) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["-r", path, "-Y", "btatt", "-T", "fields", "-e", "hci_h4.direction", "-e", "btatt.opcode"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            let columns = line.split(separator: "\t").map(String.init)
            guard columns.count == 2, let direction = UInt8(columns[0].dropFirst(2), radix: 16),
                  let opcode = UInt8(columns[1].dropFirst(2), radix: 16) else { return nil }
            return (direction == 0, opcode)
        }
    }
}
