/// How long a device waits before its next connect attempt after a failure.
///
/// The `n`th consecutive failure (from 1) waits `min(maximum, initial · 2^(n−1))`, then
/// jitter moves it up or down by up to `jitter` of itself, so gateways that lost the same
/// peers do not retry in lockstep; the result never exceeds `maximum`.
public struct RetryBackoff: Hashable, Sendable {
    /// The first wait, and the wait for a "retry soon" reason.
    public var initial: Duration
    /// The cap no wait exceeds.
    public var maximum: Duration
    /// Fraction, 0...1, the jitter may add or remove.
    public var jitter: Double

    /// 0.25 s growing to 5 min, ±20 %.
    public init(initial: Duration = .milliseconds(250), maximum: Duration = .seconds(300), jitter: Double = 0.2) {
        self.initial = max(.zero, initial)
        self.maximum = max(self.initial, maximum)
        self.jitter = jitter.isFinite ? min(1, max(0, jitter)) : 0
    }

    /// The wait after `failures` consecutive failures (at least 1), with `fraction` in 0..<1.
    public func delay(failures: Int, fraction: Double) -> Duration {
        let initialSeconds = TimeArithmetic.seconds(initial), cap = TimeArithmetic.seconds(maximum)
        // Double step by step so a huge count saturates at the cap instead of overflowing.
        var base = initialSeconds
        var n = 1
        while n < failures && base < cap {
            base *= 2
            n += 1
        }
        base = min(base, cap)
        let f = fraction.isFinite ? min(max(fraction, 0), 1) : 0.5
        let jittered = base * (1 + jitter * (2 * f - 1))
        return TimeArithmetic.duration(min(jittered, cap))
    }
}
