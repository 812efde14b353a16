/// The one wake-up an actor keeps for its sans-I/O engines: engines report deadlines,
/// and only the earliest needs a sleeping task.
struct DeadlineTimer {
    /// How late a wake-up may be before it counts as a stall rather than scheduling noise.
    static let stallThreshold: Duration = .seconds(1)
    private var task: Task<Void, Never>?
    private var deadline: MonotonicTime?

    /// Arms the timer for `time` (reached at `instant`) unless an earlier wake-up is
    /// already armed, replacing a later one.
    mutating func schedule(_ time: MonotonicTime, at instant: ContinuousClock.Instant,
                           fire: @escaping @Sendable () async -> Void) {
        if let current = deadline, current <= time, task != nil { return }
        task?.cancel()
        deadline = time
        task = Task {
            try? await Task.sleep(until: instant, clock: .continuous)
            if Task.isCancelled { return }
            // Woken long after the deadline: this process was not being scheduled (a
            // starved cooperative pool, a stopped process), and whatever the peer sent
            // meanwhile may still wait unread behind us. The missed time is given back
            // once, so that a reply that arrived during the stall is read before the
            // engine declares a timeout; a peer that really is silent still times out.
            let late = ContinuousClock.now - instant
            if late > Self.stallThreshold {
                try? await Task.sleep(for: late, clock: .continuous)
                if Task.isCancelled { return }
            }
            await fire()
        }
    }

    /// Marks the armed wake-up as spent, so that the next deadline arms a new one.
    mutating func fired() {
        task = nil
        deadline = nil
    }
}
