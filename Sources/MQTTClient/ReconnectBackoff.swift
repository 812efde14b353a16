/// The delay before the next connection attempt: 0.25 s, doubling to 30 s, back to the
/// start once the broker accepts a connection. No jitter: one gateway per broker link, and
/// tests can predict it.
struct ReconnectBackoff: Sendable, Equatable {
    static let initial: Duration = .milliseconds(250)
    static let maximum: Duration = .seconds(30)

    private(set) var next: Duration = Self.initial

    /// The delay to wait now; the one after it is twice as long, up to the maximum.
    mutating func take() -> Duration {
        let delay = next
        next = min(next * 2, Self.maximum)
        return delay
    }

    mutating func reset() { next = Self.initial }
}
