import HCI

/// Carrying out what the host produced: packets to the stream, events to their owners,
/// completions to their waiters, deadlines to the loop timer, and the stop.
extension UserlandHost {
    /// What one round of output left for after it: the Security Managers' share, and
    /// whether the application's event budget ran out.
    private struct Round {
        var securityEvents: [HostEvent] = []
        var securityCompletions: [HostOutput.Completion] = []
        var overflowed = false

        var hasSecurityWork: Bool { !securityEvents.isEmpty || !securityCompletions.isEmpty }
    }

    /// Carries out what the host produced into `state.out`, in the order ``HostOutput``
    /// documents, and clears it. Runs under the state lock, so packets leave in the order
    /// the host produced them whichever thread asked.
    ///
    /// A round can produce more output (the Security Managers answer, the stream fails,
    /// the event budget runs out): rounds repeat until one produces nothing more.
    func execute(_ state: inout State) {
        while true {
            queuePackets(&state)
            var round = Round()
            route(&round, &state)
            complete(&round, &state)
            if let deadline = state.out.deadline, state.out.closeError == nil { arm(deadline, &state) }
            let closeError = state.out.closeError
            if let closeError { stop(closeError, &state) }
            state.out.removeAll()
            if closeError != nil {
                beginShutdown(&state)
            } else if !state.stream.outbox.isEmpty {
                if state.stream.outbox.pendingCount > Self.outboxLimit {
                    let why = "\(endpoint) stopped taking input (\(state.stream.outbox.pendingCount) bytes wait to be written)"
                    state.host.transportClosed(why, at: Self.now(), into: &state.out)
                    continue
                }
                flushOutbox(&state)
            }
            if state.stopped == nil && round.hasSecurityWork {
                runSecurity(round.securityEvents, round.securityCompletions, &state)
                if !round.overflowed { continue }
            }
            guard round.overflowed else { break }
            let why = "the application stopped taking host events (\(HostEvents.eventLimit) wait)"
            state.host.transportClosed(why, at: Self.now(), into: &state.out)
            eventSink.finish()
        }
        // The SMP timers of the links (30 s per procedure) share the host's loop timer.
        if state.stopped == nil, let deadline = state.security.deadline { arm(deadline, &state) }
        state.channels.wakeDrained(state.host)
    }

    /// Records the round's packets and queues them for the stream, in one piece (they lie
    /// back to back in the output's buffer).
    private func queuePackets(_ state: inout State) {
        guard let first = state.out.packets.first, let last = state.out.packets.last, !state.stream.isClosed else { return }
        if let recorder {
            let keepsKeys = recorder.keepsKeys
            for packet in state.out.packets {
                let bytes = Array(state.out.bytes(of: packet))
                recorder.record(keepsKeys ? bytes : H4KeyMask.masked(bytes), fromHost: true)
            }
        }
        state.stream.outbox.append(state.out.buffer[first.lowerBound..<last.upperBound])
    }

    /// Sends each event to whoever owns it: the Security Managers, the start waiter, a
    /// connection's ATT channel, or the application's bounded event stream.
    private func route(_ round: inout Round, _ state: inout State) {
        let pairs = state.host.configuration.pairingEnabled
        for event in state.out.events {
            if pairs {
                switch Self.securityShare(of: event) {
                case .taken:
                    round.securityEvents.append(event)
                    continue
                case .copied:
                    round.securityEvents.append(event)
                case .none:
                    break
                }
            }
            guard routeToOwner(event, &state) else { continue }
            guard eventSink.offer(event) else {
                // Once: the stop's own events are refused like this one.
                if state.stopped == nil && state.out.closeError == nil { round.overflowed = true }
                continue
            }
        }
    }

    /// Handles an event that has an owner of its own; returns whether the application's
    /// event stream should get it as well.
    private func routeToOwner(_ event: HostEvent, _ state: inout State) -> Bool {
        switch event {
        case .ready(let info):
            state.requests.ready(info)
        case .connected(let info) where routesATTToChannels:
            state.channels.open(info, host: self)
        case .attributeData(let handle, let pdu) where routesATTToChannels:
            state.channels.deliver(pdu, on: handle)
            return false
        case .indicationBeforeConfirmation(let handle):
            // The link's owner learns why it ends now; the Disconnection Complete that
            // follows finds the channel gone.
            state.channels.end(handle, .indicationBeforeConfirmation)
        case .disconnected(let handle, let reason):
            state.channels.end(handle, .disconnected(reason))
        case .connectionEnded(let handle, let error):
            state.channels.end(handle, .ended(error))
        case .advertisingReport(let report):
            // Reports are the one event a busy street can flood: bounded, drops counted.
            eventSink.offerReport(report)
            return false
        default:
            break
        }
        return true
    }

    /// Resumes the tasks waiting for the round's completions; the rest are the Security
    /// Managers' when the host pairs (their own requests), and nobody's otherwise.
    private func complete(_ round: inout Round, _ state: inout State) {
        let pairs = state.host.configuration.pairingEnabled
        for completion in state.out.completions {
            let waited = state.requests.complete(completion)
            if !waited && pairs { round.securityCompletions.append(completion) }
        }
    }

    /// The host stopped: every waiter, channel and Security Manager learns why.
    private func stop(_ error: HostError, _ state: inout State) {
        state.stopped = error
        state.requests.failAll(error)
        state.channels.endAll(error)
        state.security.stopped(error)
    }
}
