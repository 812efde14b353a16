import Capture
import CaptureTestSupport
import Foundation
import HCI
import Testing

/// What a session capture holds, read back by our own Capture module and by tshark.
public struct SessionCapture {
    /// (sent by us, opcode) of every ATT PDU, in order, as our extractor sees them.
    public var attune: [(sent: Bool, opcode: UInt8)] = []
    /// The same from tshark, or nil when tshark is not installed.
    public var tshark: [(sent: Bool, opcode: UInt8)]?
    /// The first record's packet type and direction: a Reset command, sent.
    public var firstRecordIsSentCommand = false
    public var recordCount = 0

    public init(path: String) throws {
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

    /// (sent, opcode) of every ATT PDU tshark finds whose direction it reads.
    private static func tsharkATT(_ path: String) throws -> [(sent: Bool, opcode: UInt8)]? {
        guard TShark.path != nil else { return nil }
        return try TShark.attPDUs(path, bytes: false).compactMap { pdu in pdu.sent.map { ($0, pdu.opcode) } }
    }
}

extension SessionCapture {
    /// Checks the capture a public-API session wrote through `snoop:` on the userland
    /// host: it starts with our HCI_Reset, holds each ATT opcode `expected` names in its
    /// direction, and tshark (when installed) reads the same ATT PDUs in the same order.
    public static func verifyPublicAPICapture(_ path: String, expected: [(sent: Bool, opcode: UInt8)],
                                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let capture = try SessionCapture(path: path)
        #expect(capture.firstRecordIsSentCommand, "capture starts with HCI_Reset, sent", sourceLocation: sourceLocation)
        for pdu in expected {
            #expect(capture.attune.contains { $0 == pdu }, "ATT opcode \(pdu.opcode) \(pdu.sent ? "sent" : "received") recorded",
                    sourceLocation: sourceLocation)
        }
        if let tshark = capture.tshark {
            #expect(!tshark.isEmpty, "tshark sees ATT", sourceLocation: sourceLocation)
            #expect(tshark.map { "\($0.sent):\($0.opcode)" } == capture.attune.map { "\($0.sent):\($0.opcode)" },
                    "tshark and attune agree", sourceLocation: sourceLocation)
        }
    }
}
