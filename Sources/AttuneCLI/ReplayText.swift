import ATT
import Capture
import Replay

/// How `attune replay` prints what a ``ReplaySession`` found.
enum ReplayText {
    /// The first divergence with both decodings, then "N matched, M diverged".
    static func report(_ report: ReplayReport) -> String {
        var lines: [String] = []
        if let first = report.divergences.first { lines.append("first divergence: " + divergence(first)) }
        var notes: [String] = []
        if report.diverged > 0 { notes.append("\(report.explained) explained") }
        if report.notReplayed > 0 { notes.append("\(report.notReplayed) unsolicited PDUs and confirmations not replayed") }
        lines.append("\(report.matched) matched, \(report.diverged) diverged"
            + (notes.isEmpty ? "" : " (" + notes.joined(separator: "; ") + ")"))
        return lines.joined(separator: "\n")
    }

    /// The record fed in, both answers decoded, and the cause when known.
    static func divergence(_ d: ReplayDivergence) -> String {
        func show(_ bytes: [UInt8]?, _ decoded: Result<ATTPDU, ATTDecodingError>?) -> String {
            guard let bytes, let decoded else { return "(nothing)" }
            switch decoded {
            case let .success(pdu): return "\(pdu)  [\(hexString(bytes))]"
            case let .failure(error): return "undecodable \(hexString(bytes)): \(error)"
            }
        }
        let fed = (try? d.input.pdu.get()).map { "\($0)" } ?? hexString(d.input.bytes)
        let place = d.role == .server || ATTOpcode(d.input.opcode ?? 0).kind == .indication
            ? "after" : "where the captured client sent"
        var lines = ["record \(d.input.frame.recordIndex): \(place) \(fed)",
                     "  captured: \(show(d.expected, d.expectedPDU))",
                     "  ours:     \(show(d.actual, d.actualPDU))"]
        if let cause = d.cause { lines.append("  why:      \(text(cause))") }
        return lines.joined(separator: "\n")
    }

    /// A divergence's cause in words.
    static func text(_ cause: DivergenceCause) -> String {
        switch cause {
        case let .prepareWriteHeaderCounted(offset, length):
            return "the captured server refused \(length) bytes at offset \(offset) with Invalid Attribute "
                + "Value Length although offset + length is within the 512-byte limit: BlueZ counts the 4 header bytes "
                + "of Prepare Write toward it (BlueZ's behaviour, not the spec's)"
        case let .longWriteRejectedAtOffset(offset):
            return "the captured server's write callback rejected the second chunk of a long write at offset "
                + "\(offset) (btgatt-server's Device Name callback truncates the name at the offset); the spec "
                + "queues prepared writes and checks offsets at Execute Write"
        case let .followsDivergence(record, handle):
            return "follows from the divergence at record \(record), which left handle \(handle) with a different value"
        case let .writeNotKept(handle, record):
            return "handle \(handle) was written at record \(record) and both servers accepted it, "
                + "but the captured server later answered a different value: its application does not keep "
                + "that write; ours serves the value written"
        case let .databaseChanged(record):
            return "the captured server's database changed during the capture (Service Changed indicated at record "
                + "\(record)); the replayed database is the one the capture showed first"
        case let .notInRebuiltDatabase(handle):
            return "the capture never revealed handle \(handle), so the database rebuilt from it cannot serve it"
        case let .applicationRejectedValue(code):
            return "the captured server's application rejected the value (error \(code)); a replayed database "
                + "attribute accepts any value up to its maximum length"
        case let .pushNotDeclared(handle, indication, properties):
            return "the captured server \(indication ? "indicated" : "notified") handle \(handle), whose characteristic "
                + "declares properties 0x\(String(properties, radix: 16)) without \(indication ? "Indicate" : "Notify"); "
                + "ours follows the declaration and sends nothing"
        case .readUsingUUIDContinues:
            return "our client continues Read Using Characteristic UUID after the first response, to collect every "
                + "characteristic with the UUID in the range; the captured client stopped after one response "
                + "(stacks differ here)"
        case let .valueIsLive(handle, properties):
            return "handle \(handle) belongs to a characteristic that notifies or indicates (properties "
                + "0x\(String(properties, radix: 16))): its value is live data, measured anew since the capture"
        case let .refusedWriteChangedValue(record, handle):
            return "both servers refused the write of handle \(handle) at record \(record), yet the captured server's "
                + "value changed: it applied the prepared parts it accepted as they came (BlueZ runs write callbacks at "
                + "Prepare Write); ours queues prepared writes and applied none"
        case .refusedPartCancelsQueue:
            return "the captured server refused a prepared part; our client then cancels the queued writes "
                + "(Execute Write, flags 0x00) where the captured client executed the parts that were accepted"
        }
    }
}
