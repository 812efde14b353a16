import BluetoothCore

/// Turns the process's continuous clock into the `MonotonicTime` the sans-I/O engines
/// take, and back into instants to sleep until.
///
/// Public so that applications on the API (the gateway) drive their own sans-I/O machines
/// on the same time base as the central's, rather than keeping a second copy of it.
public struct MonotonicClock: Sendable {
    /// Time zero of this clock: `now` counts from here.
    public let origin = ContinuousClock.now

    public init() {}

    /// Time since ``origin``, never negative.
    public var now: MonotonicTime {
        let (seconds, attoseconds) = (ContinuousClock.now - origin).components
        return MonotonicTime(nanoseconds: UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000))
    }

    /// The instant `time` falls on, to sleep until.
    public func instant(_ time: MonotonicTime) -> ContinuousClock.Instant {
        origin + .nanoseconds(Int64(clamping: time.nanoseconds))
    }
}
