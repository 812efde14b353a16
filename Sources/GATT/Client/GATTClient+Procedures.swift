import ATT

extension GATTClient {
    func context(_ bearer: ATTBearer) -> ProcedureContext {
        ProcedureContext(mtu: bearer.mtu, database: database, configuration: configuration, linkEncrypted: linkEncrypted)
    }

    mutating func makeID() -> GATTRequestID {
        defer { nextID += 1 }
        return GATTRequestID(rawValue: nextID)
    }

    mutating func enqueue(_ procedure: any ClientProcedure, purpose: Purpose) {
        queue.append(Pending(id: makeID(), procedure: procedure, purpose: purpose))
    }

    /// Starts queued procedures until one waits for a response.
    mutating func pump(bearer: inout ATTBearer, at now: MonotonicTime, into actions: inout [GATTClientAction]) {
        while active == nil, !isClosed, queueHead < queue.count {
            let next = queue[queueHead]
            queueHead += 1
            if queueHead > 32 && queueHead * 2 > queue.count {
                queue.removeFirst(queueHead)
                queueHead = 0
            }
            // The placeholder request is replaced by the first one the procedure sends.
            var started = Active(pending: next, request: .handleValueConfirmation(HandleValueConfirmation()))
            if next.procedure.isDatabaseDiscovery, let timeout = configuration.discoveryTimeout {
                started.discoveryDeadline = now + timeout
            }
            let step = started.pending.procedure.start(context(bearer))
            apply(step, started, bearer: &bearer, at: now, into: &actions)
        }
    }

    mutating func apply(_ step: ProcedureStep, _ current: Active, bearer: inout ATTBearer, at now: MonotonicTime,
                        into actions: inout [GATTClientAction]) {
        switch step {
        case let .request(pdu):
            var next = current
            next.request = pdu
            active = next
            send(pdu, bearer: &bearer, at: now, into: &actions)
        case let .command(pdu, response):
            var buffer: [UInt8] = []
            do {
                try bearer.sendCommandPDU(pdu, into: &buffer)
                actions.append(.send(buffer))
                finish(current.pending, .success(response), bearer: &bearer, into: &actions)
            } catch {
                finish(current.pending, .failure(Self.clientError(error)), bearer: &bearer, into: &actions)
            }
        case let .finish(result):
            finish(current.pending, result, bearer: &bearer, into: &actions)
        }
    }

    mutating func send(_ pdu: ATTClientPDU, bearer: inout ATTBearer, at now: MonotonicTime, into actions: inout [GATTClientAction]) {
        var buffer: [UInt8] = []
        do {
            try bearer.sendRequestPDU(pdu, into: &buffer, at: now)
            actions.append(.send(buffer))
            actions.append(.scheduleDeadline(Self.earliest(bearer.deadline, discoveryDeadline)))
        } catch {
            if let current = active {
                active = nil
                finish(current.pending, .failure(Self.clientError(error)), bearer: &bearer, into: &actions)
            }
        }
    }

    static func earliest(_ a: MonotonicTime?, _ b: MonotonicTime?) -> MonotonicTime? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }

    static func clientError(_ error: ATTBearerError) -> GATTClientError {
        switch error {
        case .closed(let reason): reason.isTimeout ? .transactionTimeout : .bearerClosed
        case .encoding(let e): .invalidArgument(e.description)
        default: .invalidArgument(error.description)
        }
    }

    func violation(_ reason: ProtocolViolation.Reason, _ bytes: ArraySlice<UInt8>) -> GATTClientError {
        .protocolViolation(ProtocolViolation(reason, opcode: ATTOpcode(bytes.first ?? 0), pdu: Array(bytes)))
    }

    /// A procedure ended: update what the engine keeps, then tell the application.
    mutating func finish(_ pending: Pending, _ result: Result<GATTClientResponse, GATTClientError>,
                         bearer: inout ATTBearer, into actions: inout [GATTClientAction]) {
        switch (pending.purpose, result) {
        case (.startupMTU, _):
            advanceStartup(.mtuExchanged, into: &actions)
            return
        case let (.startupDiscovery, .success(.database(found))):
            let previous = database
            database = found
            if !previous.services.isEmpty && previous != found {
                let invalidated = previous.services.filter { !found.services.contains($0) }
                let discovered = found.services.filter { !previous.services.contains($0) }
                if !invalidated.isEmpty || !discovered.isEmpty {
                    actions.append(.deliver(.servicesChanged(invalidated: invalidated, discovered: discovered)))
                }
            }
            advanceStartup(.discovered(found), into: &actions)
            return
        case (.startupDiscovery, .failure(let error)):
            advanceStartup(.discoveryFailed(error), into: &actions)
            return
        case let (.restore(record), _):
            restoreWritten(record, result, into: &actions)
            advanceStartup(.restoreAnswered, into: &actions)
            return
        case let (.relocation(record), _):
            restoreWritten(record, result, into: &actions)
            return
        case let (.rediscovery(range), .success(.database(found))):
            let invalidated = database.removeServices(overlapping: range)
            database.insert(found.services)
            actions.append(.deliver(.servicesChanged(invalidated: invalidated, discovered: found.services)))
            relocateSubscriptions(in: range, into: &actions)
            return
        case (.rediscovery, _), (.cleanup, _):
            return
        case (.signedWrite, .success):
            if !linkEncrypted { configuration.signingKey?.signCounter &+= 1 }
        case let (.command, .success(.database(found))):
            database = found
        default:
            break
        }
        finishBookkeeping(pending, result, into: &actions)
    }

    /// Completion without engine state changes beyond subscription counts.
    mutating func finishBookkeeping(_ pending: Pending, _ result: Result<GATTClientResponse, GATTClientError>,
                                    into actions: inout [GATTClientAction]) {
        switch pending.purpose {
        case .startupMTU, .startupDiscovery, .rediscovery, .cleanup:
            return
        case .restore, .relocation:
            // The link closed before the answer: the subscription stays in the table,
            // for the owner to hand to the next link.
            return
        case let .subscription(record, kind, delta):
            if case .failure = result {
                subscriptionWritten(record, kind: kind, delta: delta, failed: true, into: &actions)
            } else {
                subscriptionWritten(record, kind: kind, delta: delta, failed: false, into: &actions)
            }
        default:
            break
        }
        actions.append(.complete(pending.id, result))
    }

    /// A Service Changed indication names the range whose attributes changed: forget the
    /// services there and discover that range again (Vol 3 Part G §7.1).
    mutating func serviceChanged(_ indication: HandleValueIndication, bearer: inout ATTBearer, at now: MonotonicTime,
                                 into actions: inout [GATTClientAction]) {
        guard let sc = database.characteristic(uuid: GATTAttributeType.serviceChanged), sc.valueHandle == indication.handle,
              indication.value.count == 4 else { return }
        let v = indication.value
        let s = v.startIndex
        let start = AttributeHandle(UInt16(v[s]) | UInt16(v[s + 1]) << 8)
        let end = AttributeHandle(UInt16(v[s + 2]) | UInt16(v[s + 3]) << 8)
        let range = AttributeHandleRange(start: AttributeHandle(max(1, start.rawValue)), end: end)
        guard range.isValid else { return }
        enqueue(DatabaseDiscoveryProcedure(range: range), purpose: .rediscovery(range))
    }
}
