import ATT
import Capture

/// Where our engine answered differently from the captured peer.
public struct ReplayDivergence: Sendable, CustomStringConvertible {
    /// Index, in the conversation, of the PDU that was fed in.
    public var index: Int
    /// The PDU that was fed in.
    public var input: CapturedATTPDU
    /// What the captured peer answered (nil: nothing).
    public var expected: [UInt8]?
    /// What our engine answered (nil: nothing).
    public var actual: [UInt8]?
    /// Why these differ, when the difference has a known, explained cause.
    public var explanation: String?
    /// The role our engine played: as server it answered `input`; as client `input` is
    /// what the captured client sent where ours sent `actual`.
    public var role: ATTRole

    public init(index: Int, input: CapturedATTPDU, expected: [UInt8]?, actual: [UInt8]?, explanation: String? = nil,
                role: ATTRole = .server) {
        self.index = index
        self.input = input
        self.expected = expected
        self.actual = actual
        self.explanation = explanation
        self.role = role
    }

    public var description: String {
        func show(_ bytes: [UInt8]?) -> String {
            guard let bytes else { return "(nothing)" }
            switch Result(catching: { () throws(ATTDecodingError) -> ATTPDU in try ATTPDU.decode(bytes[...]) }) {
            case let .success(pdu): return "\(pdu)  [\(hexString(bytes))]"
            case let .failure(error): return "undecodable \(hexString(bytes)): \(error)"
            }
        }
        let fed = (try? input.pdu.get()).map { "\($0)" } ?? hexString(input.bytes)
        let place = role == .server || ATTOpcode(input.opcode ?? 0).kind == .indication ? "after" : "where the captured client sent"
        var lines = ["record \(input.frame.recordIndex): \(place) \(fed)",
                     "  captured: \(show(expected))",
                     "  ours:     \(show(actual))"]
        if let explanation { lines.append("  why:      \(explanation)") }
        return lines.joined(separator: "\n")
    }
}

extension Result where Failure == ATTDecodingError {
    init(catching body: () throws(ATTDecodingError) -> Success) {
        do { self = .success(try body()) } catch { self = .failure(error) }
    }
}
