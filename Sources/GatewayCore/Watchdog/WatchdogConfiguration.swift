/// The knobs of a ``SubscriptionWatchdog``.
public struct WatchdogConfiguration: Hashable, Sendable {
    /// Silence of this many learned intervals raises the alarm.
    public var silenceMultiplier: Double
    /// ...but never a silence shorter than this (a 10 Hz sensor would otherwise be
    /// re-subscribed after a 0.5 s hiccup).
    public var minimumSilence: Duration
    /// Gaps needed before an interval counts as learned.
    public var minimumSamples: Int
    /// Gaps the learner keeps.
    public var samples: Int

    /// 5 × the interval, at least 2 s, learned from 3 gaps.
    public init(silenceMultiplier: Double = 5, minimumSilence: Duration = .seconds(2),
                minimumSamples: Int = 3, samples: Int = 15) {
        self.silenceMultiplier = silenceMultiplier.isFinite ? max(1, silenceMultiplier) : 5
        self.minimumSilence = max(.zero, minimumSilence)
        self.minimumSamples = max(1, minimumSamples)
        self.samples = samples
    }
}
