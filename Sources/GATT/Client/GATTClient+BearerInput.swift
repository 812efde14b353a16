import ATT

extension GATTClient {
    /// Takes what the bearer made of one received PDU. `bytes` are that PDU, for the
    /// ATT_MTU check and for error reports.
    public mutating func handle(_ event: ATTBearerEvent, bytes: ArraySlice<UInt8>, bearer: inout ATTBearer,
                                at now: MonotonicTime, into actions: inout [GATTClientAction]) {
        // The one switch over what the bearer decoded: a notification or indication is
        // delivered from its own case, and only a response reaches the procedure.
        switch event {
        case let .response(pdu, _):
            guard answer(pdu, bytes: bytes, bearer: &bearer, at: now, into: &actions) else { return }
        case let .notification(n):
            guard fitsMTU(bytes, bearer, into: &actions) else { return }
            actions.append(.deliver(.notification(n.handle, n.value)))
        case let .multipleNotification(m):
            guard fitsMTU(bytes, bearer, into: &actions) else { return }
            for e in m.entries { actions.append(.deliver(.notification(e.handle, e.value))) }
        case let .indication(indication):
            actions.append(.deliver(.indication(indication.handle, indication.value)))
            serviceChanged(indication, bearer: &bearer, at: now, into: &actions)
        case let .malformedResponse(error, _):
            guard let current = active else { return }
            active = nil
            if !current.cancelled { finish(current.pending, .failure(.malformedPDU(error)), bearer: &bearer, into: &actions) }
        case let .closed(reason, failedRequest, _):
            closeAll(Self.closeError(reason, failedRequest: failedRequest, bytes: bytes), reason: reason, into: &actions)
            return
        case .request, .command, .confirmation, .handled, .dropped:
            // Requests, commands and confirmations belong to the GATT server engine.
            return
        }
        pump(bearer: &bearer, at: now, into: &actions)
    }

    /// A notification longer than ATT_MTU is dropped and reported, never delivered cut.
    private func fitsMTU(_ bytes: ArraySlice<UInt8>, _ bearer: ATTBearer, into actions: inout [GATTClientAction]) -> Bool {
        guard bytes.count > bearer.mtu else { return true }
        actions.append(.deliver(.dropped(violation(.exceedsATTMTU(length: bytes.count, mtu: bearer.mtu), bytes))))
        return false
    }

    /// The response or Error Response to the active procedure's request. Returns false
    /// when the queue must not move on (no procedure is active, or the request is being
    /// sent again).
    private mutating func answer(_ pdu: ATTServerPDU, bytes: ArraySlice<UInt8>, bearer: inout ATTBearer,
                                 at now: MonotonicTime, into actions: inout [GATTClientAction]) -> Bool {
        guard var current = active else { return false }
        if current.cancelled {
            active = nil
            if let cleanup = current.pending.procedure.cleanupRequest() {
                queue.insert(Pending(id: current.pending.id, procedure: CleanupProcedure(request: cleanup), purpose: .cleanup), at: queueHead)
            }
            return true
        }
        if bytes.count > bearer.mtu {
            // The spec has no room for a PDU longer than ATT_MTU; BlueZ truncates it
            // silently. Attune rejects it, so a value is never silently altered.
            active = nil
            finish(current.pending, .failure(violation(.exceedsATTMTU(length: bytes.count, mtu: bearer.mtu), bytes)),
                   bearer: &bearer, into: &actions)
            return true
        }
        if case let .errorResponse(e) = pdu, e.errorCode.isSecurityError, configuration.canRaiseSecurity,
           !current.retriedAfterSecurity {
            current.retriedAfterSecurity = true
            active = current
            actions.append(.raiseSecurity)
            send(current.request, bearer: &bearer, at: now, into: &actions)
            return false
        }
        let context = self.context(bearer)
        // Clear `active` before the procedure mutates, so `current` holds the only
        // reference to its state and nothing it has gathered is copied per response.
        active = nil
        current.responses += 1
        let step = current.pending.procedure.receive(pdu, bytes: bytes, context)
        apply(step, current, bearer: &bearer, at: now, into: &actions)
        return true
    }

    /// What the pending commands fail with when the bearer closed for `reason`: the
    /// cause itself, so that a timeout or the PDU that broke the protocol reaches the
    /// application instead of a bare "closed". `bytes` are the PDU that closed it, if a
    /// PDU did.
    static func closeError(_ reason: ATTBearerCloseReason, failedRequest: ATTOpcode?,
                           bytes: ArraySlice<UInt8>) -> GATTClientError {
        switch reason {
        case .requestTimeout, .indicationTimeout:
            return .transactionTimeout
        case .unexpectedResponse(let opcode):
            // The bearer closes on a response of the wrong opcode too, not only on one
            // with no request outstanding; the request it was waiting for tells them apart.
            let why: ProtocolViolation.Reason = failedRequest?.responseOpcode.map { .unexpectedResponse(expected: $0) }
                ?? .unsolicitedResponse
            return .protocolViolation(ProtocolViolation(why, opcode: opcode, pdu: Array(bytes)))
        case .requestWhileRequestPending(let opcode):
            return .protocolViolation(ProtocolViolation(.requestWhileRequestPending, opcode: opcode, pdu: Array(bytes)))
        case .unexpectedConfirmation:
            return .protocolViolation(ProtocolViolation(.unsolicitedConfirmation, opcode: .handleValueConfirmation,
                                                        pdu: Array(bytes)))
        case .indicationBeforeConfirmation:
            return .protocolViolation(ProtocolViolation(.indicationBeforeConfirmation, opcode: .handleValueIndication,
                                                        pdu: Array(bytes)))
        case .local:
            return .bearerClosed
        }
    }

    /// The bearer timed out or the link went away: everything pending fails.
    mutating func closeAll(_ error: GATTClientError, reason: ATTBearerCloseReason, into actions: inout [GATTClientAction]) {
        guard !isClosed else { return }
        closeError = error
        if let current = active, !current.cancelled { finishBookkeeping(current.pending, .failure(error), into: &actions) }
        active = nil
        for p in queue[queueHead...] { finishBookkeeping(p, .failure(error), into: &actions) }
        queue = []
        queueHead = 0
        actions.append(.close(error))
    }
}
