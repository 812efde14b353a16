import ATT

extension GATTClient {
    /// Takes what the bearer made of one received PDU. `bytes` are that PDU, for the
    /// ATT_MTU check and for error reports.
    public mutating func handle(_ event: ATTBearerEvent, bytes: ArraySlice<UInt8>, bearer: inout ATTBearer,
                                at now: MonotonicTime, into actions: inout [GATTClientAction]) {
        switch event {
        case let .notification(pdu):
            if bytes.count > bearer.mtu {
                actions.append(.deliver(.dropped(violation(.exceedsATTMTU(length: bytes.count, mtu: bearer.mtu), bytes))))
                return
            }
            switch pdu {
            case let .handleValueNotification(n):
                actions.append(.deliver(.notification(n.handle, n.value)))
            case let .multipleHandleValueNotification(m):
                for e in m.entries { actions.append(.deliver(.notification(e.handle, e.value))) }
            default:
                break
            }
        case let .indication(indication):
            actions.append(.deliver(.indication(indication.handle, indication.value)))
            serviceChanged(indication, bearer: &bearer, at: now, into: &actions)
        case let .response(pdu, _):
            guard var current = active else { return }
            if current.cancelled {
                active = nil
                if let cleanup = current.pending.procedure.cleanupRequest() {
                    queue.insert(Pending(id: current.pending.id, procedure: CleanupProcedure(request: cleanup), purpose: .cleanup), at: queueHead)
                }
                break
            }
            if bytes.count > bearer.mtu {
                // The spec has no room for a PDU longer than ATT_MTU; BlueZ truncates it
                // silently. Attune rejects it, so a value is never silently altered.
                active = nil
                finish(current.pending, .failure(violation(.exceedsATTMTU(length: bytes.count, mtu: bearer.mtu), bytes)),
                       bearer: &bearer, into: &actions)
                break
            }
            if case let .errorResponse(e) = pdu, e.errorCode.isSecurityError, configuration.canRaiseSecurity,
               !current.retriedAfterSecurity {
                current.retriedAfterSecurity = true
                active = current
                actions.append(.raiseSecurity)
                send(current.request, bearer: &bearer, at: now, into: &actions)
                return
            }
            let context = self.context(bearer)
            // Clear `active` before the procedure mutates, so `current` holds the only
            // reference to its state and nothing it has gathered is copied per response.
            active = nil
            current.responses += 1
            let step = current.pending.procedure.receive(pdu, bytes: bytes, context)
            apply(step, current, bearer: &bearer, at: now, into: &actions)
        case let .malformedResponse(error, _):
            guard let current = active else { return }
            active = nil
            if !current.cancelled { finish(current.pending, .failure(.malformedPDU(error)), bearer: &bearer, into: &actions) }
        case let .closed(reason, _, _):
            closeAll(reason.isTimeout ? .transactionTimeout : .bearerClosed, reason: reason, into: &actions)
            return
        case .request, .command, .confirmation, .handled, .dropped:
            return
        }
        pump(bearer: &bearer, at: now, into: &actions)
    }

    /// The bearer timed out or the link went away: everything pending fails.
    mutating func closeAll(_ error: GATTClientError, reason: ATTBearerCloseReason, into actions: inout [GATTClientAction]) {
        guard !isClosed else { return }
        isClosed = true
        if let current = active, !current.cancelled { finishBookkeeping(current.pending, .failure(error), into: &actions) }
        active = nil
        for p in queue[queueHead...] { finishBookkeeping(p, .failure(error), into: &actions) }
        queue = []
        queueHead = 0
        actions.append(.close(error))
    }
}
