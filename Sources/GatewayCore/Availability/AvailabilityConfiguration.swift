/// The timeouts of an ``AvailabilityTracker``.
public struct AvailabilityConfiguration: Hashable, Sendable {
    /// An advertiser is offline after this many learned intervals without a packet.
    public var intervalMultiplier: Double
    /// ...but never sooner than this after its last packet.
    public var floor: Duration
    /// The timeout before any interval is learned (one packet seen so far): long enough
    /// that a slow advertiser's second packet arrives first.
    public var unlearned: Duration
    /// Gaps the interval learner keeps.
    public var samples: Int

    /// 3 × the interval with a 60 s floor; 180 s until learned.
    public init(intervalMultiplier: Double = 3, floor: Duration = .seconds(60),
                unlearned: Duration = .seconds(180), samples: Int = 15) {
        self.intervalMultiplier = intervalMultiplier.isFinite ? max(1, intervalMultiplier) : 3
        self.floor = max(.zero, floor)
        self.unlearned = max(self.floor, unlearned)
        self.samples = samples
    }
}
