import BluetoothCore

/// Learns how often something arrives (advertisements, notifications) as the median of
/// the last few gaps between arrivals.
///
/// The median, not the mean: one gap that spans a missed burst, a scan pause or a restart
/// does not move it, and neither do the near-zero gaps of the same packet heard twice
/// (two adapters, a scan response), which are dropped outright below ``minimumGap``.
/// Memory is fixed: at most ``capacity`` gaps.
public struct IntervalLearner: Hashable, Sendable {
    /// Gaps kept, oldest first.
    private(set) var gaps: [Double] = []
    /// The median of `gaps`, kept at each arrival: machines ask for it on every tick and
    /// deadline walk, for every device, far more often than arrivals change it.
    private var median: Double?
    private var next = 0
    /// The last arrival.
    public private(set) var last: MonotonicTime?
    /// Gaps kept, 1...255.
    public let capacity: Int
    /// Gaps shorter than this (seconds) are duplicates, not intervals.
    public let minimumGap: Double

    /// BLE's shortest advertising interval is 20 ms, so that is the default duplicate cut.
    public init(capacity: Int = 15, minimumGap: Double = 0.02) {
        self.capacity = min(255, max(1, capacity))
        self.minimumGap = minimumGap.isFinite ? max(0, minimumGap) : 0
    }

    /// Records an arrival. `learn: false` moves ``last`` without learning the gap (the
    /// gap spans a time we know was not an interval, such as an offline stretch).
    public mutating func arrival(at now: MonotonicTime, learn: Bool = true) {
        guard let l = last else {
            last = now
            return
        }
        guard now > l else { return }
        let gap = TimeArithmetic.seconds(from: l, to: now)
        // A second copy of the same packet: the interval runs from the first copy.
        guard gap >= minimumGap else { return }
        last = now
        guard learn else { return }
        if gaps.count < capacity {
            gaps.append(gap)
        } else {
            gaps[next] = gap
            next = (next + 1) % capacity
        }
        let sorted = gaps.sorted()
        let mid = sorted.count / 2
        median = sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    /// Number of gaps learned.
    public var sampleCount: Int { gaps.count }

    /// The median gap, once at least `minimumSamples` were seen.
    public func interval(minimumSamples: Int = 1) -> Duration? {
        guard let median, gaps.count >= minimumSamples else { return nil }
        return TimeArithmetic.duration(median)
    }
}
