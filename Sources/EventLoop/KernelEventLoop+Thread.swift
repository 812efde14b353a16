extension KernelEventLoop {
    /// What one pass found to do, done after the lock is released so that handlers and
    /// resumed tasks may call back into the loop.
    private enum Work {
        case ready(@Sendable (Readiness) -> Void, Readiness)
        case resume(CheckedContinuation<Void, any Error>)
        case fail(CheckedContinuation<Void, any Error>, any Error)
        case run(@Sendable () -> Void)
    }

    /// The loop thread's body: wait, sort the reports into work under the lock, do the
    /// work, until ``shutdown()``.
    func run() {
        var batch = EpollSelector.Batch(capacity: 256)
        var work: [Work] = []
        work.reserveCapacity(batch.capacity)
        while selector.wait(&batch) {
            var stop = false
            state.withLock { state in
                for index in 0..<batch.count {
                    let event = batch[index]
                    switch event.token {
                    case EpollSelector.wakeToken:
                        selector.consumeWake()
                        for body in state.submitted { work.append(.run(body)) }
                        state.submitted.removeAll(keepingCapacity: true)
                        stop = state.stopping
                    case EpollSelector.timerToken:
                        selector.consumeTimer()
                        fireTimers(&state, into: &work)
                    default:
                        readiness(event, &state, into: &work)
                    }
                }
            }
            for item in work {
                switch item {
                case .ready(let handler, let readiness): handler(readiness)
                case .resume(let continuation): continuation.resume()
                case .fail(let continuation, let error): continuation.resume(throwing: error)
                case .run(let body): body()
                }
            }
            work.removeAll(keepingCapacity: true)
            if stop { break }
        }
        finish()
    }

    /// Every timer that is due, as work; then the timerfd points at the next one.
    private func fireTimers(_ state: inout State, into work: inout [Work]) {
        state.armedDeadline = nil
        for action in state.timers.popExpired(now: Self.now()) {
            switch action {
            case .resume(let continuation):
                work.append(.resume(continuation))
            case .run(let body):
                work.append(.run(body))
            case .expireWaiter(let registration, let waiter, let direction):
                if let continuation = takeWaiter(&state, registration: registration, waiter: waiter, direction: direction) {
                    work.append(.fail(continuation, EventLoopError(kind: .timedOut, operation: "wait")))
                }
            }
        }
        rearmTimer(&state)
    }

    /// A descriptor's report: its watch's handler gets a turn, or its registration's
    /// waiters wake (or the readiness is kept for the next wait).
    private func readiness(_ event: EpollSelector.Event, _ state: inout State, into work: inout [Work]) {
        if let watched = state.watches[event.token] {
            work.append(.ready(watched.handler, Readiness(readable: watched.reading && event.readable,
                                                          writable: watched.writing && event.writable,
                                                          hungUp: event.hungUp)))
            return
        }
        guard var interest = state.interests[event.token] else { return }
        if event.hungUp {
            interest.hungUp = true
            interest.hangUps &+= 1
        }
        // An error or hang-up wakes both directions: the next call says which it was.
        if event.readable || event.hungUp {
            if let reader = interest.reader {
                interest.reader = nil
                if let timerID = reader.timerID { state.timers.remove(id: timerID) }
                work.append(.resume(reader.continuation))
            } else {
                interest.readable = true
            }
        }
        if event.writable || event.hungUp {
            if let writer = interest.writer {
                interest.writer = nil
                if let timerID = writer.timerID { state.timers.remove(id: timerID) }
                work.append(.resume(writer.continuation))
            } else {
                interest.writable = true
            }
        }
        state.interests[event.token] = interest
    }

    /// After the last pass: every wait and sleep fails, submitted work runs once, and the
    /// selector's descriptors close.
    private func finish() {
        let (interests, timers, submitted) = state.withLock { state in
            let interests = state.interests
            state.interests.removeAll()
            state.watches.removeAll()
            let timers = state.timers.popExpired(now: UInt64.max)
            let submitted = state.submitted
            state.submitted.removeAll()
            return (interests, timers, submitted)
        }
        let error = EventLoopError(kind: .closed, operation: "event loop stopped")
        for interest in interests.values {
            interest.reader?.continuation.resume(throwing: error)
            interest.writer?.continuation.resume(throwing: error)
        }
        for action in timers {
            if case .resume(let continuation) = action { continuation.resume(throwing: error) }
        }
        for body in submitted { body() }
        selector.close()
    }
}
