import EventLoop

/// ``MQTTClient/close()`` on the loop thread: what was published before it goes out first.
extension MQTTClient {
    /// Drains when connected with messages undelivered; otherwise closes at once. A second
    /// `close()` during a drain waits for the same end.
    func beginClose(_ waiter: CheckedContinuation<Void, Never>) {
        let drain = state.withLock { state -> Bool in
            state.closeWaiters.append(waiter)
            switch state.phase {
            case .draining:
                return true
            case .connected where !state.queue.isEmpty || !state.inFlight.isEmpty:
                state.phase = .draining
                state.drainTimer = loop.schedule(after: configuration.closeDrainLimit) { [weak self] in
                    self?.shutDown(graceful: true)
                }
                return true
            default:
                return false
            }
        }
        // A drain goes on through the usual path: pump, write, and each PUBACK or written
        // QoS 0 packet (``didPublish(mid:reasonCode:)``) until nothing is left.
        if drain { afterIO() } else { shutDown(graceful: true) }
    }
}
