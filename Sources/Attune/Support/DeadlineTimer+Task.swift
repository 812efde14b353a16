/// The actors' wake-up for their engines: a sleeping task per armed deadline.
extension DeadlineTimer where Handle == Task<Void, Never> {
    /// How late a wake-up may be before it counts as a stall rather than scheduling noise.
    static var stallThreshold: Duration { .seconds(1) }

    /// Arms the timer for `time` (reached at `instant`) unless an earlier wake-up is
    /// already armed, replacing a later one.
    mutating func schedule(_ time: MonotonicTime, at instant: ContinuousClock.Instant,
                           fire: @escaping @Sendable () async -> Void) {
        arm(time) { _ in
            Task {
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
        }?.cancel()
    }
}
