/// We asked the link to close and wait for it to say it has.
struct DisconnectingState: Hashable, Sendable {
    /// After this the link counts as closed even if it never said so.
    var deadline: MonotonicTime
    /// The application asked to connect again meanwhile.
    var connectAfterwards: Bool
}
