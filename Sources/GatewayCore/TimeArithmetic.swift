import BluetoothCore

/// Conversions between `Duration`, seconds as `Double` and ``MonotonicTime`` that never
/// trap: the learned intervals come from peers, so they can be anything.
enum TimeArithmetic {
    /// `d` in seconds.
    static func seconds(_ d: Duration) -> Double {
        let (s, atto) = d.components
        return Double(s) + Double(atto) / 1e18
    }

    /// `s` seconds as a Duration; negative or NaN gives zero, huge saturates at about 292 years.
    static func duration(_ s: Double) -> Duration {
        guard s.isFinite, s > 0 else { return s == .infinity ? .seconds(Int64.max / 1_000_000_000) : .zero }
        let ns = s * 1e9
        guard ns < 9.2e18 else { return .nanoseconds(Int64.max) }
        return .nanoseconds(Int64(ns.rounded()))
    }

    /// Seconds from `earlier` to `later` (zero when `later` is earlier).
    static func seconds(from earlier: MonotonicTime, to later: MonotonicTime) -> Double {
        later.nanoseconds >= earlier.nanoseconds ? Double(later.nanoseconds - earlier.nanoseconds) / 1e9 : 0
    }

    /// The earlier of two optional deadlines.
    static func earliest(_ a: MonotonicTime?, _ b: MonotonicTime?) -> MonotonicTime? {
        switch (a, b) {
        case (nil, let x), (let x, nil): x
        case (let x?, let y?): min(x, y)
        }
    }
}
