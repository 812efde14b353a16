import Capture

/// The outcome of replaying one conversation against our engine.
public struct ReplayReport: Sendable, CustomStringConvertible {
    /// Inputs whose answers matched the capture byte for byte.
    public var matched = 0
    /// Inputs whose answers differed, in capture order.
    public var divergences: [ReplayDivergence] = []
    /// Captured PDUs the peer sent on its own (notifications, indications) that replay
    /// cannot provoke, since the application triggered them.
    public var notReplayed = 0

    public var diverged: Int { divergences.count }
    /// Divergences with a known cause.
    public var explained: Int { divergences.filter { $0.explanation != nil }.count }

    /// The first divergence with both decodings, then "N matched, M diverged".
    public var description: String {
        var lines: [String] = []
        if let first = divergences.first { lines.append("first divergence: " + first.description) }
        var notes: [String] = []
        if diverged > 0 { notes.append("\(explained) explained") }
        if notReplayed > 0 { notes.append("\(notReplayed) unsolicited PDUs and confirmations not replayed") }
        lines.append("\(matched) matched, \(diverged) diverged" + (notes.isEmpty ? "" : " (" + notes.joined(separator: "; ") + ")"))
        return lines.joined(separator: "\n")
    }
}
