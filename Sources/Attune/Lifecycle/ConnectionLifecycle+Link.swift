extension ConnectionLifecycle {
    /// The link is up (LE Connection Complete with success, or the socket connected).
    public mutating func linkUp(at now: MonotonicTime) -> [LifecycleAction] {
        guard case .connecting(let s) = state else {
            // Up after we gave up on it: close it again.
            return [.closeLink]
        }
        wasEstablished = true
        state = .connected(ConnectedState(phase: .connected, applicationWaiting: s.applicationWaiting))
        return [.deliver(.phase(.connected)), .startGATT]
    }

    /// The link's GATT engine moved on in its start-up (exchanging the MTU, checking the
    /// cache, discovering, restoring subscriptions).
    public mutating func gattPhase(_ phase: LifecyclePhase) -> [LifecycleAction] {
        guard case .connected(var s) = state, s.phase != .ready, s.phase != phase, phase != .ready else { return [] }
        s.phase = phase
        state = .connected(s)
        return [.deliver(.phase(phase))]
    }

    /// The link's GATT engine finished its start-up (or its discovery failed and the
    /// connection goes on without a database): operations may start.
    public mutating func gattReady(at now: MonotonicTime) -> [LifecycleAction] {
        guard case .connected(var s) = state, s.phase != .ready else { return [] }
        s.phase = .ready
        s.applicationWaiting = false
        state = .connected(s)
        failedAttempts = 0
        return [.deliver(.phase(.ready))]
    }

    /// The connect attempt failed before the link came up.
    public mutating func linkFailed(_ reason: DisconnectReason, at now: MonotonicTime) -> [LifecycleAction] {
        guard case .connecting(let s) = state else { return [] }
        let error: AttuneError = reason == .connectionTimeout ? .connectionTimeout : .connectionFailed(reason)
        var actions: [LifecycleAction] = []
        if s.applicationWaiting { actions.append(.deliver(.connectFailed(error))) }
        return actions + afterLoss(reason: reason, error: error, at: now)
    }

    /// The link went down (Disconnection Complete, socket closed, ATT bearer closed).
    public mutating func linkDown(_ reason: DisconnectReason, at now: MonotonicTime) -> [LifecycleAction] {
        switch state {
        case .connecting:
            return linkFailed(reason, at: now)
        case .connected(let s):
            let error = AttuneError.peripheralDisconnected(reason)
            var actions: [LifecycleAction] = [.failPendingOperations(reason)]
            if s.applicationWaiting { actions.append(.deliver(.connectFailed(error))) }
            return actions + afterLoss(reason: reason, error: error, at: now)
        case .disconnecting(let s):
            var actions = becomeDisconnected(reason: reason, endingWith: .cancelled)
            if s.connectAfterwards { actions += startAttempt(at: now, applicationWaiting: true) }
            return actions
        case .disconnected, .reconnectPending:
            return []
        }
    }

    /// Time passed: connect timeouts, disconnect timeouts and reconnect attempts.
    public mutating func tick(at now: MonotonicTime) -> [LifecycleAction] {
        switch state {
        case .connecting(let s) where now >= s.deadline:
            return [.closeLink] + linkFailed(.connectionTimeout, at: now)
        case .disconnecting(let s) where now >= s.deadline:
            return linkDown(.cancelled, at: now)
        case .reconnectPending(let s) where now >= s.at:
            return startAttempt(at: now, applicationWaiting: false)
        default:
            return nextDeadline.map { [.schedule($0)] } ?? []
        }
    }
}
