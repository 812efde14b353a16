/// A point on a monotonic clock, in nanoseconds from an arbitrary origin.
///
/// Sans-I/O engines never read a clock: the caller passes `now` in and gets deadlines
/// back as `MonotonicTime`, so tests and replays drive time explicitly.
public struct MonotonicTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanoseconds: UInt64

    @inlinable public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    /// The origin; handy for tests.
    public static let zero = MonotonicTime(nanoseconds: 0)

    /// `seconds` after the origin.
    @inlinable
    public static func seconds(_ seconds: Double) -> MonotonicTime {
        MonotonicTime(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
    }

    @inlinable
    public static func < (a: MonotonicTime, b: MonotonicTime) -> Bool { a.nanoseconds < b.nanoseconds }

    /// Saturates instead of trapping, so a huge timeout means "never".
    @inlinable
    public static func + (time: MonotonicTime, duration: Duration) -> MonotonicTime {
        let (seconds, attoseconds) = duration.components
        if seconds < 0 { return time }
        let (secNs, o1) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let ns = secNs &+ UInt64(attoseconds / 1_000_000_000)
        let (sum, o2) = time.nanoseconds.addingReportingOverflow(ns)
        return MonotonicTime(nanoseconds: (o1 || o2) ? .max : sum)
    }

    /// The time from `earlier` to `self` (zero if `earlier` is later).
    @inlinable
    public func duration(since earlier: MonotonicTime) -> Duration {
        nanoseconds >= earlier.nanoseconds ? .nanoseconds(Int64(clamping: nanoseconds - earlier.nanoseconds)) : .zero
    }

    public var description: String { "t+\(Double(nanoseconds) / 1e9)s" }
}
