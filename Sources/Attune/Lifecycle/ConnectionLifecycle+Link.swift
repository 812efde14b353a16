extension ConnectionLifecycle {
    /// The link is up (LE Connection Complete with success, or the socket connected).
    public mutating func linkUp(at now: MonotonicTime, into actions: inout [LifecycleAction]) {
        guard case .connecting(let s) = state else {
            // Up after we gave up on it: close it again.
            actions.append(.closeLink)
            return
        }
        wasEstablished = true
        state = .connected(ConnectedState(phase: .connected, applicationWaiting: s.applicationWaiting))
        actions += [.deliver(.phase(.connected)), .startGATT]
    }

    /// The link's GATT engine moved on in its start-up (exchanging the MTU, checking the
    /// cache, discovering, restoring subscriptions).
    public mutating func gattPhase(_ phase: LifecyclePhase, into actions: inout [LifecycleAction]) {
        guard case .connected(var s) = state, s.phase != .ready, s.phase != phase, phase != .ready else { return }
        s.phase = phase
        state = .connected(s)
        actions.append(.deliver(.phase(phase)))
    }

    /// The link's GATT engine finished its start-up (or its discovery failed and the
    /// connection goes on without a database): operations may start.
    public mutating func gattReady(at now: MonotonicTime, into actions: inout [LifecycleAction]) {
        guard case .connected(var s) = state, s.phase != .ready else { return }
        s.phase = .ready
        s.applicationWaiting = false
        state = .connected(s)
        failedAttempts = 0
        actions.append(.deliver(.phase(.ready)))
    }

    /// The connect attempt failed before the link came up.
    public mutating func linkFailed(_ reason: DisconnectReason, at now: MonotonicTime, into actions: inout [LifecycleAction]) {
        // A cancelled attempt that ended without a link: that is its end.
        if case .disconnecting = state {
            linkDown(reason, at: now, into: &actions)
            return
        }
        guard case .connecting(let s) = state else { return }
        let error: AttuneError = reason == .connectionTimeout ? .connectionTimeout : .connectionFailed(reason)
        if s.applicationWaiting { actions.append(.deliver(.connectFailed(error))) }
        afterLoss(reason: reason, error: error, at: now, into: &actions)
    }

    /// The link went down (Disconnection Complete, socket closed, ATT bearer closed).
    public mutating func linkDown(_ reason: DisconnectReason, at now: MonotonicTime, into actions: inout [LifecycleAction]) {
        switch state {
        case .connecting:
            linkFailed(reason, at: now, into: &actions)
        case .connected(let s):
            let error = AttuneError.peripheralDisconnected(reason)
            actions.append(.failPendingOperations(reason))
            if s.applicationWaiting { actions.append(.deliver(.connectFailed(error))) }
            afterLoss(reason: reason, error: error, at: now, into: &actions)
        case .disconnecting(let s):
            // A connect cancelled during its attempt or the link's start-up learns of it now
            // the attempt or the link is over.
            if s.applicationWaiting && !s.connectAfterwards { actions.append(.deliver(.connectFailed(.cancelled))) }
            becomeDisconnected(reason: reason, endingWith: .cancelled, into: &actions)
            if s.connectAfterwards { startAttempt(at: now, applicationWaiting: true, into: &actions) }
        case .disconnected, .reconnectPending:
            return
        }
    }

    /// Time passed: connect timeouts, disconnect timeouts and reconnect attempts.
    public mutating func tick(at now: MonotonicTime, into actions: inout [LifecycleAction]) {
        switch state {
        case .connecting(let s) where now >= s.deadline:
            actions.append(.closeLink)
            linkFailed(.connectionTimeout, at: now, into: &actions)
        case .disconnecting(let s) where now >= s.deadline:
            linkDown(.cancelled, at: now, into: &actions)
        case .reconnectPending(let s) where now >= s.at:
            startAttempt(at: now, applicationWaiting: false, into: &actions)
        default:
            if let next = nextDeadline { actions.append(.schedule(next)) }
        }
    }
}
