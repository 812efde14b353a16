extension KernelEventLoop {
    /// Suspends for `duration` on the loop's timer; cancellable.
    public func sleep(for duration: Duration) async throws {
        let timerID = state.withLock { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { state -> Bool in
                    if Task.isCancelled { return true }
                    state.timers.insert(id: timerID, deadline: Self.now() &+ Self.nanoseconds(duration),
                                        action: .resume(continuation))
                    rearmTimer(&state)
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let action = state.withLock { $0.timers.remove(id: timerID) }
            if case .resume(let continuation)? = action { continuation.resume(throwing: CancellationError()) }
        }
    }

    /// Runs `body` on the loop thread after `delay`, unless cancelled first.
    @discardableResult
    public func schedule(after delay: Duration, _ body: @escaping @Sendable () -> Void) -> Timer {
        state.withLock { state in
            let id = state.makeID()
            state.timers.insert(id: id, deadline: Self.now() &+ Self.nanoseconds(delay), action: .run(body))
            rearmTimer(&state)
            return Timer(id: id)
        }
    }

    /// Cancels a timer; returns false when it already fired or was cancelled.
    @discardableResult
    public func cancel(_ timer: Timer) -> Bool {
        state.withLock { $0.timers.remove(id: timer.id) } != nil
    }

    /// Runs `body` on the loop thread as soon as possible (wakes it through the eventfd).
    public func execute(_ body: @escaping @Sendable () -> Void) {
        state.withLock { $0.submitted.append(body) }
        selector.wake()
    }

    /// Stops the loop thread and closes its descriptors. Pending waits fail
    /// with ``EventLoopError/Kind/closed``. The shared loop is never stopped.
    public func shutdown() {
        state.withLock { $0.stopping = true }
        selector.wake()
    }

    /// Points the timerfd at the earliest deadline. Called with the lock held.
    func rearmTimer(_ state: inout State) {
        let earliest = state.timers.earliestDeadline()
        guard earliest != state.armedDeadline else { return }
        state.armedDeadline = earliest
        selector.arm(earliest)
    }
}
