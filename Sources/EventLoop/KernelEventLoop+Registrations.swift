extension KernelEventLoop {
    /// Registers a non-blocking descriptor for readiness notifications.
    public func register(_ fd: Int32) throws(EventLoopError) -> Registration {
        let id = state.withLock { state -> UInt64 in
            let id = state.makeID()
            state.interests[id] = Interest(fd: fd)
            return id
        }
        do {
            try selector.add(fd, token: id, reading: true, writing: true, edgeTriggered: true)
        } catch {
            _ = state.withLock { $0.interests.removeValue(forKey: id) }
            throw error
        }
        return Registration(id: id)
    }

    /// Removes a descriptor from the loop before it is closed; pending waits
    /// fail with ``EventLoopError/Kind/closed``.
    public func deregister(_ registration: Registration) {
        let interest = state.withLock { state -> Interest? in
            guard let interest = state.interests.removeValue(forKey: registration.id) else { return nil }
            // The waiters' time-outs go with them: they fail below instead.
            for waiter in [interest.reader, interest.writer].compactMap({ $0 }) {
                if let timerID = waiter.timerID { state.timers.remove(id: timerID) }
            }
            return interest
        }
        guard let interest else { return }
        selector.remove(interest.fd)
        let error = EventLoopError(kind: .closed, operation: "wait")
        interest.reader?.continuation.resume(throwing: error)
        interest.writer?.continuation.resume(throwing: error)
    }

    /// Whether the descriptor reported an error or hang-up since it was registered, or
    /// since ``clearHangUp(_:seen:)``: waits on it then return at once.
    /// Returns the count of such reports, to hand to ``clearHangUp(_:seen:)``; nil when none.
    public func hangUpSeen(_ registration: Registration) -> UInt64? {
        state.withLock { state in
            guard let interest = state.interests[registration.id], interest.hungUp else { return nil }
            return interest.hangUps
        }
    }

    /// Forgets a reported error or hang-up that has passed, so waits on the descriptor
    /// wait for its next readiness again; a report that came after `seen` is kept.
    public func clearHangUp(_ registration: Registration, seen: UInt64) {
        state.withLock { state in
            guard state.interests[registration.id]?.hangUps == seen else { return }
            state.interests[registration.id]?.hungUp = false
        }
    }

    /// Suspends until the descriptor is readable (or has an error or hang-up
    /// to report), the timeout passes (``EventLoopError/Kind/timedOut``)
    /// or the task is cancelled.
    public func waitReadable(_ registration: Registration, timeout: Duration? = nil) async throws {
        try await wait(registration, direction: .read, timeout: timeout)
    }

    /// Suspends until the descriptor is writable; see ``waitReadable(_:timeout:)``.
    public func waitWritable(_ registration: Registration, timeout: Duration? = nil) async throws {
        try await wait(registration, direction: .write, timeout: timeout)
    }

    private func wait(_ registration: Registration, direction: Direction, timeout: Duration?) async throws {
        let waiterID = state.withLock { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let immediate = state.withLock { state in
                    enqueueWaiter(&state, registration: registration.id, waiterID: waiterID, direction: direction,
                                  timeout: timeout, continuation: continuation)
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let continuation = state.withLock { state in
                takeWaiter(&state, registration: registration.id, waiter: waiterID, direction: direction)
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Takes readiness the descriptor already has, or parks the waiter (with its time-out
    /// armed). Returns the result to resume with at once; nil when the waiter was parked.
    private func enqueueWaiter(_ state: inout State, registration: UInt64, waiterID: UInt64, direction: Direction,
                               timeout: Duration?,
                               continuation: CheckedContinuation<Void, any Error>) -> Result<Void, any Error>? {
        if Task.isCancelled { return .failure(CancellationError()) }
        guard var interest = state.interests[registration] else {
            return .failure(EventLoopError(kind: .closed, operation: "wait"))
        }
        switch direction {
        case .read:
            if interest.readable || interest.hungUp {
                interest.readable = false
                state.interests[registration] = interest
                return .success(())
            }
            if interest.reader != nil { return .failure(EventLoopError(kind: .busy, operation: "wait for read")) }
        case .write:
            if interest.writable || interest.hungUp {
                interest.writable = false
                state.interests[registration] = interest
                return .success(())
            }
            if interest.writer != nil { return .failure(EventLoopError(kind: .busy, operation: "wait for write")) }
        }
        var timerID: UInt64?
        if let timeout {
            let id = state.makeID()
            timerID = id
            let deadline = Self.now() &+ Self.nanoseconds(timeout)
            state.timers.insert(id: id, deadline: deadline,
                                action: .expireWaiter(registration: registration, waiter: waiterID, direction: direction))
            rearmTimer(&state)
        }
        let waiter = Waiter(id: waiterID, continuation: continuation, timerID: timerID)
        if direction == .read { interest.reader = waiter } else { interest.writer = waiter }
        state.interests[registration] = interest
        return nil
    }

    /// Removes a parked waiter (cancelled or timed out) and its time-out; nil when it
    /// was already woken.
    func takeWaiter(_ state: inout State, registration: UInt64, waiter: UInt64,
                    direction: Direction) -> CheckedContinuation<Void, any Error>? {
        guard var interest = state.interests[registration] else { return nil }
        let current = direction == .read ? interest.reader : interest.writer
        guard let current, current.id == waiter else { return nil }
        if direction == .read { interest.reader = nil } else { interest.writer = nil }
        state.interests[registration] = interest
        if let timerID = current.timerID { state.timers.remove(id: timerID) }
        return current.continuation
    }
}
