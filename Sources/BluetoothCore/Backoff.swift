/// Exponential backoff with optional jitter: the one wait-before-retry rule of the
/// project (the API's automatic reconnects, the gateway's connect retries, the MQTT
/// client's reconnects).
///
/// Attempt `n` (from 0) waits `min(maximumDelay, initialDelay · multiplier^n)`; jitter
/// then moves that by up to `jitter` of itself, in the direction ``jitterDirection``
/// names, and never past the cap. The random fraction is passed in, so the type reads
/// no clock and no random source, and a test predicts every wait.
public struct Backoff: Hashable, Sendable {
    /// Which way jitter may move a wait.
    public enum JitterDirection: Hashable, Sendable {
        /// Only shorter: the cap is never exceeded, and a fleet that lost the same peers
        /// spreads out below it.
        case shorterOnly
        /// Shorter or longer by up to the fraction, so the average stays the base wait;
        /// still never past the cap.
        case eitherWay
    }

    /// The wait before the first retry.
    public var initialDelay: Duration
    /// The cap no wait exceeds.
    public var maximumDelay: Duration
    /// Growth per attempt, at least 1.
    public var multiplier: Double
    /// Fraction of the wait, 0...1, that jitter may move.
    public var jitter: Double
    /// Which way jitter moves the wait.
    public var jitterDirection: JitterDirection

    /// 1 s growing to 60 s, doubling, with 20 % jitter that only shortens.
    public static let standard = Backoff()

    /// Out-of-range values are clamped: delays at least zero, the cap at least the
    /// initial delay, the multiplier at least 1, jitter 0...1 (not finite: 0).
    public init(initialDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(60),
                multiplier: Double = 2, jitter: Double = 0.2, jitterDirection: JitterDirection = .shorterOnly) {
        self.initialDelay = max(.zero, initialDelay)
        self.maximumDelay = max(self.initialDelay, maximumDelay)
        self.multiplier = multiplier.isFinite ? max(1, multiplier) : 1
        self.jitter = jitter.isFinite ? min(1, max(0, jitter)) : 0
        self.jitterDirection = jitterDirection
    }

    /// The wait before attempt `attempt` (from 0; a negative one counts as 0), with
    /// `random` in 0..<1 (out of range is clamped; not finite counts as 0.5).
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
        let r = random.isFinite ? min(max(random, 0), 1) : 0.5
        let jittered = switch jitterDirection {
        case .shorterOnly: base * (1 - jitter * r)
        case .eitherWay: base * (1 + jitter * (2 * r - 1))
        }
        return Self.duration(min(jittered, cap))
    }

    private static func seconds(_ d: Duration) -> Double {
        let (s, atto) = d.components
        return Double(s) + Double(atto) / 1e18
    }

    /// Rounded to the nanosecond; saturates rather than trapping on a huge cap.
    private static func duration(_ s: Double) -> Duration {
        guard s > 0 else { return .zero }
        let ns = s * 1e9
        guard ns < 9.2e18 else { return .nanoseconds(Int64.max) }
        return .nanoseconds(Int64(ns.rounded()))
    }
}
