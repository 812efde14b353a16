/// Exponential backoff with jitter for automatic reconnects.
///
/// Attempt `n` (from 0) waits `min(maximumDelay, initialDelay · multiplier^n)`, then
/// jitter takes up to `jitter` of that away at random, so a fleet of gateways that lost
/// the same peers does not retry in lockstep, and the cap is never exceeded.
public struct Backoff: Hashable, Sendable {
    /// The wait before the first reconnect attempt.
    public var initialDelay: Duration
    /// The cap no wait exceeds.
    public var maximumDelay: Duration
    /// Growth per attempt, at least 1.
    public var multiplier: Double
    /// Fraction of the delay, 0...1, that jitter may remove.
    public var jitter: Double

    /// 1 s growing to 60 s, doubling, with 20 % jitter.
    public static let standard = Backoff()

    /// Out-of-range values are clamped: the cap is at least the initial delay, jitter 0...1.
    public init(initialDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(60),
                multiplier: Double = 2, jitter: Double = 0.2) {
        self.initialDelay = initialDelay
        self.maximumDelay = max(initialDelay, maximumDelay)
        self.multiplier = max(1, multiplier)
        self.jitter = min(1, max(0, jitter))
    }

    /// The delay before attempt `attempt`, with `random` in 0..<1.
    public func delay(attempt: Int, random: Double) -> Duration {
        let initial = Self.seconds(initialDelay), cap = Self.seconds(maximumDelay)
        // Grow step by step so a huge attempt count saturates instead of overflowing.
        var base = initial
        var n = 0
        while n < attempt && base < cap {
            base *= multiplier
            n += 1
        }
        base = min(base, cap)
        let jittered = base * (1 - jitter * min(max(random, 0), 1))
        return .nanoseconds(Int64((jittered * 1e9).rounded()))
    }

    private static func seconds(_ d: Duration) -> Double {
        let (s, atto) = d.components
        return Double(s) + Double(atto) / 1e18
    }
}
