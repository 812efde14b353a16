/// The one wake-up an actor keeps for its sans-I/O engines: engines report deadlines,
/// and only the earliest needs a sleeping task.
struct DeadlineTimer {
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
            await fire()
        }
    }

    /// Marks the armed wake-up as spent, so that the next deadline arms a new one.
    mutating func fired() {
        task = nil
        deadline = nil
    }
}
