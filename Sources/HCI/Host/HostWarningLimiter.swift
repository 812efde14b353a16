/// Bounds how many warnings the host delivers, whatever the input rate: a controller or
/// peer flooding bad input must not turn into an unbounded stream of actions (a hostile
/// controller grew a process by 50 MB/s that way). Every warning is counted; in each
/// window the first ``burst`` of a kind are delivered, and the rest of that kind only
/// as one ``HostWarning/suppressed(_:count:)`` summary when the window ends.
///
/// So at most ``maximumPerWindow`` warning actions come out per ``window``. Windows are
/// driven by the time the host is given; with suppressed warnings pending, the host
/// schedules a tick at the window's end so the summary comes out even if input stops.
struct HostWarningLimiter: Sendable {
    /// The length of a window.
    static let window = Duration.seconds(1)
    /// Warnings of one kind delivered in full per window.
    static let burst = 8
    /// The most warning actions in one window: every kind's burst plus its summary.
    static let maximumPerWindow = HostWarning.Kind.allCases.count * (burst + 1)

    private(set) var counts = HostWarningCounts()
    private var deliveredInWindow = HostWarningCounts()
    private var suppressed = HostWarningCounts()
    private var windowEnd: MonotonicTime?

    /// Counts a warning; true when it is to be delivered.
    mutating func record(_ warning: HostWarning) -> Bool {
        guard let kind = warning.kind else { return true }
        counts[kind] += 1
        guard deliveredInWindow[kind] < Self.burst else {
            suppressed[kind] += 1
            return false
        }
        deliveredInWindow[kind] += 1
        return true
    }

    /// Ends the window if it is over, returning the summaries of what it suppressed.
    mutating func roll(at now: MonotonicTime) -> [HostWarning] {
        if let windowEnd, now < windowEnd { return [] }
        windowEnd = now + Self.window
        deliveredInWindow = HostWarningCounts()
        return drainSummaries()
    }

    /// The summaries of every warning suppressed and not yet summarised (when the host stops).
    mutating func drainSummaries() -> [HostWarning] {
        guard suppressed.total > 0 else { return [] }
        let summaries = HostWarning.Kind.allCases.compactMap { kind in
            suppressed[kind] > 0 ? HostWarning.suppressed(kind, count: suppressed[kind]) : nil
        }
        suppressed = HostWarningCounts()
        return summaries
    }

    /// When the pending summaries are due; nil when nothing is suppressed.
    var deadline: MonotonicTime? { suppressed.total > 0 ? windowEnd : nil }
}
