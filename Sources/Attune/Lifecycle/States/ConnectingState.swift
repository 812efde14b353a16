/// A connect attempt is under way.
struct ConnectingState: Hashable, Sendable {
    /// When the attempt fails with a connection timeout.
    var deadline: MonotonicTime
    /// An application `connect` call waits for this attempt to reach `ready`.
    var applicationWaiting: Bool
}
