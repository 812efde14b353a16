/// We asked the link (or the connect attempt) to close and wait for it to say it has.
struct DisconnectingState: Hashable, Sendable {
    /// After this the link counts as closed even if it never said so.
    var deadline: MonotonicTime
    /// The application asked to connect again meanwhile.
    var connectAfterwards: Bool
    /// A connect was still waiting for the link to be ready when it was cancelled: it
    /// fails with ``AttuneError/cancelled`` once the link is down (unless the application
    /// asked to connect again, whose attempt it then waits for). Not before: until then
    /// the link still holds the peer, and a caller that connects it elsewhere on that
    /// failure would give it two links at once.
    var applicationWaiting = false
}
