import HCI

/// The command flow: requests from any task into the host, their completions back, and
/// the host's deadlines as one loop timer.
extension UserlandHost {
    /// Carries out a request and waits for its completion.
    public func perform(_ request: HostRequest) async throws(HostError) -> HostCompletion {
        let result = await withCheckedContinuation { (continuation: HostRequestWaiters.Completion) in
            state.withLock { state in
                if let error = state.stopped {
                    continuation.resume(returning: .failure(error))
                    return
                }
                let id = state.requests.makeID()
                state.requests.wait(id, continuation)
                state.host.perform(request, id: id, at: Self.now(), into: &state.out)
                execute(&state)
            }
        }
        return try result.get()
    }

    /// Sends an ATT PDU on the ATT fixed channel of a connection, and waits until the
    /// host queued it: for tools and tests that want to know it was taken. GATT engines
    /// send through their ``UserlandATTChannel`` instead, which does not wait.
    public func sendATT(_ pdu: [UInt8], on handle: UInt16) async throws(HostError) {
        _ = try await perform(.sendL2CAP(handle: handle, channel: .attribute, payload: pdu))
    }

    /// Starts a request without waiting for it; its completion is dropped. Requests
    /// submitted from one thread reach the controller in order.
    public func submit(_ request: HostRequest) {
        state.withLock { state in
            guard state.stopped == nil else { return }
            let id = state.requests.makeID()
            state.host.perform(request, id: id, at: Self.now(), into: &state.out)
            execute(&state)
        }
    }

    /// Asks for a disconnection without waiting for it.
    func requestDisconnect(handle: UInt16) {
        state.withLock { state in
            guard state.stopped == nil, state.host.connection(handle) != nil else { return }
            let id = state.requests.makeID()
            state.host.perform(.disconnect(handle: handle, reason: 0x13), id: id, at: Self.now(), into: &state.out)
            execute(&state)
        }
    }

    private func timerFired() {
        state.withLock { state in
            state.timer.fired()
            guard state.stopped == nil else { return }
            let now = Self.now()
            state.host.tick(at: now, into: &state.out)
            if state.host.configuration.pairingEnabled {
                state.security.tick(host: &state.host, out: &state.out, nextID: &state.requests.nextID, at: now)
            }
            execute(&state)
        }
    }

    /// Arms a loop timer for `deadline` unless one fires no later. A timer that fires
    /// early for a deadline that moved (a command answered) costs one empty tick.
    func arm(_ deadline: MonotonicTime, _ state: inout State) {
        let replaced = state.timer.arm(deadline) { deadline in
            loop.schedule(after: deadline.duration(since: Self.now())) { [weak self] in self?.timerFired() }
        }
        if let replaced { loop.cancel(replaced) }
    }
}
