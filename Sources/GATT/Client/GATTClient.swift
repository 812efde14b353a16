import ATT

/// The GATT client engine (Vol 3 Part G §4), sans-I/O.
///
/// Commands go in through ``perform(_:bearer:at:into:)``, each getting a
/// ``GATTRequestID``; bearer events go in through ``handle(_:bytes:bearer:at:into:)``;
/// actions come out (bytes to send, completions, events). The engine sits on an
/// ``ATTBearer`` that it borrows for each call, so one bearer can carry a server engine
/// too; ``GATTClientConnection`` bundles a bearer with a client for client-only links.
///
/// Procedures run one at a time in the order given, since a bearer allows one outstanding
/// request (Vol 3 Part F §3.3.2). After a transaction timeout the bearer is dead: the
/// current and every queued procedure fail with ``GATTClientError/transactionTimeout``
/// and nothing more is sent.
public struct GATTClient: Sendable {
    public private(set) var configuration: GATTClientConfiguration
    /// What the client knows of the server's database.
    public private(set) var database: DiscoveredDatabase
    /// Whether the link is encrypted; Signed Write sends a plain Write Command then.
    public var linkEncrypted = false
    /// True once start-up discovery finished (or the cache was confirmed).
    public private(set) var isReady = false
    /// True once the bearer closed; every command fails at once afterwards.
    public private(set) var isClosed = false

    struct Pending: Sendable {
        var id: GATTRequestID
        var procedure: any ClientProcedure
        var purpose: Purpose
    }

    /// Why a procedure runs, which decides what its completion does.
    enum Purpose: Sendable {
        case command
        case startupMTU
        case startupDiscovery
        case rediscovery(AttributeHandleRange)
        case subscription(valueHandle: AttributeHandle, kind: SubscriptionKind, delta: Int)
        case signedWrite
        /// An Execute Write cancel left behind by a cancelled long write; its answer is dropped.
        case cleanup
    }

    struct Active: Sendable {
        var pending: Pending
        var request: ATTPDU
        var retriedAfterSecurity = false
        var cancelled = false
    }

    var queue: [Pending] = []
    var queueHead = 0
    var active: Active?
    var nextID: UInt64 = 1
    var subscriptions = SubscriptionTable()

    public init(configuration: GATTClientConfiguration = GATTClientConfiguration(), database: DiscoveredDatabase = DiscoveredDatabase()) {
        self.configuration = configuration
        self.database = database
    }

    /// Number of procedures waiting behind the current one.
    public var queuedCount: Int { queue.count - queueHead }

    /// Subscribers counted for a characteristic.
    public func subscriberCount(valueHandle: AttributeHandle) -> Int { subscriptions.count(valueHandle) }

    // MARK: - Start-up

    /// Begins the configured start-up: Exchange MTU, then discovery, or a Database Hash
    /// check when the database given at `init` carries one. ``GATTClientEvent/ready(_:)``
    /// follows when discovery is configured.
    public mutating func start(bearer: inout ATTBearer, at now: MonotonicTime, into actions: inout [GATTClientAction]) {
        if configuration.exchangesMTUOnStart {
            enqueue(ExchangeMTUProcedure(rxMTU: bearer.rxMTU), purpose: .startupMTU)
        }
        if configuration.discoversOnStart {
            enqueue(discovery(cached: database.services.isEmpty ? nil : database), purpose: .startupDiscovery)
        } else {
            isReady = true
        }
        pump(bearer: &bearer, at: now, into: &actions)
    }

    func discovery(cached: DiscoveredDatabase?) -> DatabaseDiscoveryProcedure {
        var p = DatabaseDiscoveryProcedure(cached: cached)
        p.clientSupportedFeatures = configuration.clientSupportedFeatures
        p.subscribesToServiceChanged = configuration.subscribesToServiceChanged
        return p
    }

    // MARK: - Commands

    /// Queues a command; its ``GATTClientAction/complete(_:_:)`` comes later (or at once
    /// when nothing needs to be sent).
    @discardableResult
    public mutating func perform(_ command: GATTClientCommand, bearer: inout ATTBearer, at now: MonotonicTime,
                                 into actions: inout [GATTClientAction]) -> GATTRequestID {
        let id = makeID()
        if isClosed {
            actions.append(.complete(id, .failure(.bearerClosed)))
            return id
        }
        switch command {
        case .exchangeMTU:
            queue.append(Pending(id: id, procedure: ExchangeMTUProcedure(rxMTU: bearer.rxMTU), purpose: .command))
        case let .discoverAllPrimaryServices(range):
            queue.append(Pending(id: id, procedure: DiscoverServicesProcedure(range: range, primary: true), purpose: .command))
        case let .discoverSecondaryServices(range):
            queue.append(Pending(id: id, procedure: DiscoverServicesProcedure(range: range, primary: false), purpose: .command))
        case let .discoverPrimaryServices(uuid, range):
            queue.append(Pending(id: id, procedure: DiscoverPrimaryServiceByUUIDProcedure(uuid: uuid, range: range), purpose: .command))
        case let .findIncludedServices(range):
            queue.append(Pending(id: id, procedure: FindIncludedServicesProcedure(range: range), purpose: .command))
        case let .discoverAllCharacteristics(range):
            queue.append(Pending(id: id, procedure: DiscoverCharacteristicsProcedure(range: range), purpose: .command))
        case let .discoverCharacteristics(uuid, range):
            queue.append(Pending(id: id, procedure: DiscoverCharacteristicsProcedure(range: range, uuid: uuid), purpose: .command))
        case let .discoverDescriptors(range):
            queue.append(Pending(id: id, procedure: DiscoverDescriptorsProcedure(range: range), purpose: .command))
        case let .readValue(handle):
            queue.append(Pending(id: id, procedure: ReadCharacteristicValueProcedure(handle: handle), purpose: .command))
        case let .readUsingCharacteristicUUID(uuid, range):
            queue.append(Pending(id: id, procedure: ReadUsingCharacteristicUUIDProcedure(uuid: uuid, range: range), purpose: .command))
        case let .readLongValue(handle, offset):
            queue.append(Pending(id: id, procedure: ReadLongCharacteristicValueProcedure(handle: handle, offset: offset), purpose: .command))
        case let .readMultiple(handles):
            queue.append(Pending(id: id, procedure: ReadMultipleProcedure(handles: handles), purpose: .command))
        case let .readMultipleVariable(handles):
            queue.append(Pending(id: id, procedure: ReadMultipleVariableProcedure(handles: handles), purpose: .command))
        case let .writeWithoutResponse(handle, value):
            queue.append(Pending(id: id, procedure: WriteWithoutResponseProcedure(handle: handle, value: value), purpose: .command))
        case let .signedWriteWithoutResponse(handle, value):
            queue.append(Pending(id: id, procedure: SignedWriteWithoutResponseProcedure(handle: handle, value: value), purpose: .signedWrite))
        case let .writeValue(handle, value):
            queue.append(Pending(id: id, procedure: WriteCharacteristicValueProcedure(handle: handle, value: value), purpose: .command))
        case let .writeLongValue(handle, offset, value):
            queue.append(Pending(id: id, procedure: WriteLongCharacteristicValuesProcedure(
                writes: [PreparedWrite(handle: handle, offset: offset, value: value)], reliable: false), purpose: .command))
        case let .reliableWrite(writes):
            queue.append(Pending(id: id, procedure: WriteLongCharacteristicValuesProcedure(writes: writes, reliable: true), purpose: .command))
        case .discoverDatabase:
            queue.append(Pending(id: id, procedure: discovery(cached: nil), purpose: .command))
        case let .subscribe(valueHandle, kind):
            subscribe(id, valueHandle: valueHandle, kind: kind, delta: 1, into: &actions)
        case let .unsubscribe(valueHandle):
            subscribe(id, valueHandle: valueHandle, kind: subscriptions.kindToDrop(valueHandle), delta: -1, into: &actions)
        }
        pump(bearer: &bearer, at: now, into: &actions)
        return id
    }

    /// Subscriber counting: only a change of the CCCD value costs a write.
    mutating func subscribe(_ id: GATTRequestID, valueHandle: AttributeHandle, kind: SubscriptionKind?, delta: Int,
                            into actions: inout [GATTClientAction]) {
        if delta < 0 && kind == nil {
            actions.append(.complete(id, .success(.done)))
            return
        }
        guard let characteristic = database.characteristic(valueHandle: valueHandle) else {
            actions.append(.complete(id, .failure(.invalidArgument("no discovered characteristic has value handle \(valueHandle)"))))
            return
        }
        guard let cccd = characteristic.clientConfigurationHandle else {
            actions.append(.complete(id, .failure(.invalidArgument("characteristic \(valueHandle) has no Client Characteristic Configuration descriptor"))))
            return
        }
        let chosen: SubscriptionKind
        if let kind {
            chosen = kind
        } else if characteristic.properties.contains(.notify) {
            chosen = .notify
        } else if characteristic.properties.contains(.indicate) {
            chosen = .indicate
        } else {
            actions.append(.complete(id, .failure(.invalidArgument("characteristic \(valueHandle) can neither notify nor indicate"))))
            return
        }
        guard let write = subscriptions.change(valueHandle, cccd: cccd, kind: chosen, by: delta) else {
            actions.append(.complete(id, .success(.done)))
            return
        }
        let value = [UInt8(truncatingIfNeeded: write.value), UInt8(truncatingIfNeeded: write.value >> 8)]
        queue.append(Pending(id: id, procedure: WriteCharacteristicValueProcedure(handle: write.cccd, value: value),
                             purpose: .subscription(valueHandle: valueHandle, kind: chosen, delta: delta)))
    }

    /// Cancels a command. A queued one is dropped; a running one completes with
    /// ``GATTClientError/cancelled`` now, its outstanding response is discarded when it
    /// comes, and prepared writes are cancelled on the server.
    public mutating func cancel(_ id: GATTRequestID, bearer: inout ATTBearer, at now: MonotonicTime,
                                into actions: inout [GATTClientAction]) {
        if let index = queue[queueHead...].firstIndex(where: { $0.id == id }) {
            let removed = queue.remove(at: index)
            finishBookkeeping(removed, .failure(.cancelled), into: &actions)
            return
        }
        guard var current = active, current.pending.id == id, !current.cancelled else { return }
        current.cancelled = true
        active = current
        finishBookkeeping(current.pending, .failure(.cancelled), into: &actions)
    }

    // MARK: - Bearer input

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
            let step = current.pending.procedure.receive(pdu, bytes: bytes, context)
            active = nil
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

    // MARK: - Running procedures

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
            var next = queue[queueHead]
            queueHead += 1
            if queueHead > 32 && queueHead * 2 > queue.count {
                queue.removeFirst(queueHead)
                queueHead = 0
            }
            let step = next.procedure.start(context(bearer))
            apply(step, Active(pending: next, request: .writeResponse(WriteResponse())), bearer: &bearer, at: now, into: &actions)
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

    mutating func send(_ pdu: ATTPDU, bearer: inout ATTBearer, at now: MonotonicTime, into actions: inout [GATTClientAction]) {
        var buffer: [UInt8] = []
        do {
            try bearer.sendRequestPDU(pdu, into: &buffer, at: now)
            actions.append(.send(buffer))
            actions.append(.scheduleDeadline(bearer.deadline))
        } catch {
            if let current = active {
                active = nil
                finish(current.pending, .failure(Self.clientError(error)), bearer: &bearer, into: &actions)
            }
        }
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
            return
        case let (.startupDiscovery, .success(.database(found))):
            let previous = database
            database = found
            isReady = true
            if !previous.services.isEmpty && previous != found {
                let invalidated = previous.services.filter { !found.services.contains($0) }
                let discovered = found.services.filter { !previous.services.contains($0) }
                if !invalidated.isEmpty || !discovered.isEmpty {
                    actions.append(.deliver(.servicesChanged(invalidated: invalidated, discovered: discovered)))
                }
            }
            actions.append(.deliver(.ready(found)))
            return
        case (.startupDiscovery, .failure(let error)):
            actions.append(.deliver(.dropped(error)))
            return
        case let (.rediscovery(range), .success(.database(found))):
            let invalidated = database.removeServices(overlapping: range)
            database.insert(found.services)
            actions.append(.deliver(.servicesChanged(invalidated: invalidated, discovered: found.services)))
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
        case let .subscription(valueHandle, kind, delta):
            if case .failure = result, let cccd = database.characteristic(valueHandle: valueHandle)?.clientConfigurationHandle {
                // The CCCD write failed: the subscriber does not count.
                _ = subscriptions.change(valueHandle, cccd: cccd, kind: kind, by: -delta)
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

/// Sends one request whose answer nobody waits for (an Execute Write cancel after the
/// application cancelled a long write).
struct CleanupProcedure: ClientProcedure {
    let request: ATTPDU
    func start(_ context: ProcedureContext) -> ProcedureStep { .request(request) }
    func receive(_ pdu: ATTPDU, bytes: ArraySlice<UInt8>, _ context: ProcedureContext) -> ProcedureStep {
        .finish(.success(.done))
    }
}
