/// Turns the process's continuous clock into the `MonotonicTime` the sans-I/O engines
/// take, and back into instants to sleep until.
struct MonotonicClock: Sendable {
    let origin = ContinuousClock.now

    var now: MonotonicTime {
        let (seconds, attoseconds) = (ContinuousClock.now - origin).components
        return MonotonicTime(nanoseconds: UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000))
    }

    func instant(_ time: MonotonicTime) -> ContinuousClock.Instant {
        origin + .nanoseconds(Int64(clamping: time.nanoseconds))
    }
}
