/// The link dropped; the next automatic attempt starts at `at`.
struct ReconnectPendingState: Hashable, Sendable {
    var at: MonotonicTime
    /// Attempts made since the connection was last ready (0 before the first).
    var attempt: Int
}
