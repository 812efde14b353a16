import BluetoothCore

/// Counts per second over the last `seconds` whole seconds, in fixed memory.
public struct RateWindow: Hashable, Sendable {
    /// The window, 1...3600 s.
    public let seconds: Int
    private var buckets: [UInt64]
    /// The second (since the clock's origin) each bucket counts.
    private var bucketSecond: [UInt64]

    public init(seconds: Int = 10) {
        self.seconds = min(3600, max(1, seconds))
        buckets = Array(repeating: 0, count: self.seconds)
        bucketSecond = Array(repeating: .max, count: self.seconds)
    }

    /// Adds `count` arrivals at `now`.
    public mutating func add(_ count: Int = 1, at now: MonotonicTime) {
        guard count > 0 else { return }
        let second = now.nanoseconds / 1_000_000_000
        let i = Int(second % UInt64(seconds))
        if bucketSecond[i] != second {
            bucketSecond[i] = second
            buckets[i] = 0
        }
        let (sum, overflow) = buckets[i].addingReportingOverflow(UInt64(count))
        buckets[i] = overflow ? .max : sum
    }

    /// Arrivals per second over the window that ends at `now`.
    public func perSecond(at now: MonotonicTime) -> Double {
        let second = now.nanoseconds / 1_000_000_000
        var total = 0.0
        for i in 0..<seconds {
            let s = bucketSecond[i]
            if s != .max, s <= second, second - s < UInt64(seconds) { total += Double(buckets[i]) }
        }
        return total / Double(seconds)
    }
}
