import Capture

/// The outcome of replaying one conversation against our engine.
public struct ReplayReport: Sendable {
    /// Inputs whose answers matched the capture byte for byte.
    public var matched = 0
    /// Inputs whose answers differed, in capture order; a session keeps a bounded number
    /// of them (see ``ReplaySession/DivergenceBound``), the rest only counted.
    public var divergences: [ReplayDivergence] = []
    /// Divergences found past the bound on those kept, and how many of them had a known cause.
    public var unkeptDivergences = 0
    public var unkeptExplained = 0
    /// Captured PDUs the peer sent on its own (notifications, indications) that replay
    /// cannot provoke, since the application triggered them.
    public var notReplayed = 0

    public init() {}

    public var diverged: Int { divergences.count + unkeptDivergences }
    /// Divergences with a known cause.
    public var explained: Int { divergences.filter { $0.cause != nil }.count + unkeptExplained }
}
