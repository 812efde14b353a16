import ATT

/// A GATT server (Vol 3 Part G) over any number of ATT bearers, sans-I/O.
///
/// Feed it each connected client's PDUs with ``receive(_:from:at:into:)`` and call
/// ``tick(at:into:)`` at ``deadline``; send what it puts in the ``GATTServerOutput`` and
/// act on its events. It keeps, per client: the ATT bearer, CCCD values, Client Supported
/// Features, change-awareness (robust caching), the prepare queue, queued indications and
/// the signing state; bonded clients' state persists through a ``BondedClientStore``.
public struct GATTServer: Sendable {
    var core: ServerCore
    var connections = ConnectionTable()
    /// While set, queued indications are not sent (there is no output to send them in).
    var holdIndications = false
    /// Where bonded clients' state is kept.
    public var store: any BondedClientStore

    /// The database being served.
    public var database: AttributeDatabase { core.database }
    public var configuration: GATTServerConfiguration { core.configuration }

    /// Changes the receive MTU offered to clients that connect from now on (their Exchange
    /// MTU is answered with it); connected clients keep the one they got.
    public mutating func setReceiveMTU(_ mtu: UInt16) {
        core.configuration.rxMTU = mtu
    }

    public init(database: AttributeDatabase, configuration: GATTServerConfiguration = .init(),
                store: any BondedClientStore = InMemoryBondedClientStore()) {
        core = ServerCore(database: database, configuration: configuration)
        self.store = store
    }

    // MARK: - Connections

    /// Registers a connected client. A bonded `peer` gets its persisted state back; if the
    /// database changed while it was away and it subscribed to Service Changed, it is
    /// indicated at once.
    public mutating func connect(_ id: ConnectionID, security: LinkSecurity = .none, peer: PeerIdentity? = nil,
                                 at now: MonotonicTime = .zero, into out: inout GATTServerOutput) {
        var state = GATTLink(
            bearer: ATTBearer(rxMTU: core.configuration.rxMTU, transactionTimeout: core.configuration.transactionTimeout),
            security: security, peer: peer, prepareLimit: core.configuration.prepareQueueLimit)
        if let peer, let saved = store.state(for: peer) {
            state.restore(saved)
        }
        connections[id] = state
        if let peer, let saved = store.state(for: peer), !saved.changeAware {
            queueServiceChanged(AttributeHandleRange.all, on: id, at: now, into: &out)
        }
    }

    /// Registers a connected client without producing output: a Service Changed
    /// indication owed to a bonded client is queued and goes out with the output of the
    /// next ``receive(_:from:at:into:)`` or ``tick(at:into:)``.
    public mutating func connect(_ id: ConnectionID, security: LinkSecurity = .none, peer: PeerIdentity? = nil) {
        var discarded = GATTServerOutput()
        holdIndications = true
        connect(id, security: security, peer: peer, into: &discarded)
        holdIndications = false
    }

    /// Forgets a connection (link lost). Pending indications fail; a bonded client's state
    /// is saved.
    public mutating func disconnect(_ id: ConnectionID, into out: inout GATTServerOutput) {
        guard var client = connections.removeValue(forKey: id) else { return }
        let reason = ATTBearerCloseReason.local("disconnected")
        failIndications(&client, id, reason, &out)
        if client.client.queuedCount > 0 || client.bearer.outstandingRequest != nil {
            // Our own requests on the link fail with it.
            var actions: [GATTClientAction] = []
            client.clientHandle(client.bearer.close(because: "disconnected"), bytes: [], at: .zero, into: &actions)
            out.take(actions.filter(\.isCompletion), from: id)
        }
        persist(client)
        out.events.append(.connectionClosed(id, reason))
    }

    /// The link's security changed (encryption started, pairing completed).
    public mutating func updateSecurity(_ security: LinkSecurity, for id: ConnectionID) {
        connections[id]?.security = security
    }

    /// The client bonded: from now on its state persists under `peer`.
    public mutating func bond(_ id: ConnectionID, as peer: PeerIdentity) {
        guard connections[id] != nil else { return }
        connections[id]!.peer = peer
        persist(connections[id]!)
    }

    /// The peer's Connection Signature Resolving Key (least significant octet first) for
    /// verifying Signed Write Commands; `authenticated` when it came from an authenticated
    /// pairing. Counters at or below `lastCounter` are rejected as replays.
    public mutating func setSigningKey(_ csrk: [UInt8], authenticated: Bool, lastCounter: UInt32? = nil,
                                       for id: ConnectionID) {
        guard connections[id] != nil else { return }
        connections[id]!.signingKey = csrk
        connections[id]!.signingKeyAuthenticated = authenticated
        if let lastCounter { connections[id]!.lastSignCounter = lastCounter }
        persist(connections[id]!)
    }

    /// The current ATT_MTU of a connection.
    public func mtu(of id: ConnectionID) -> Int? { connections[id]?.bearer.mtu }

    /// The connected clients.
    public var connectionIDs: [ConnectionID] { Array(connections.keys) }

    /// The Client Characteristic Configuration of a client for the characteristic whose
    /// value is at `valueHandle`.
    public func clientConfiguration(of id: ConnectionID, characteristic valueHandle: AttributeHandle)
        -> ClientCharacteristicConfiguration {
        guard let slot = connections.slot(of: id), let c = core.database.characteristic(valueHandle: valueHandle) else { return [] }
        return core.configuration(of: c, connections[slot: slot].clientConfigurations)
    }

    /// Whether a client that enabled robust caching knows the current database.
    public func isChangeAware(_ id: ConnectionID) -> Bool { connections[id]?.awareness == .aware }

    mutating func persist(_ client: GATTLink) {
        if let peer = client.peer { store.save(client.bondedState, for: peer) }
    }

    mutating func persistState(of id: ConnectionID) {
        guard let client = connections[id], let peer = client.peer else { return }
        store.save(client.bondedState, for: peer)
    }

    // MARK: - Input

    /// Takes one complete ATT PDU from a client.
    public mutating func receive(_ bytes: ArraySlice<UInt8>, from id: ConnectionID, at now: MonotonicTime,
                                 into out: inout GATTServerOutput) {
        guard let slot = connections.slot(of: id) else { return }
        let start = out.buffer.count
        let event = connections[slot: slot].bearer.receive(bytes, at: now, into: &out.buffer)
        out.commit(id, from: start)
        process(event, raw: bytes, from: id, at: now, into: &out)
    }

    /// Convenience: one PDU in, the resulting actions out.
    public mutating func receive(_ bytes: [UInt8], from id: ConnectionID, at now: MonotonicTime) -> [GATTServerAction] {
        var out = GATTServerOutput()
        receive(bytes[...], from: id, at: now, into: &out)
        return out.actions
    }

    /// Returns the connection's state when the event removed it.
    @discardableResult
    mutating func process(_ event: ATTBearerEvent, raw: ArraySlice<UInt8>, from id: ConnectionID,
                          at now: MonotonicTime, into out: inout GATTServerOutput) -> GATTLink? {
        guard let slot = connections.slot(of: id) else { return nil }
        switch event {
        case .request(let pdu):
            guard admit(pdu, slot: slot, from: id, into: &out) else { return nil }
            core.serve(pdu, raw: raw, resolved: nil, id, &connections[slot: slot], now: now, &out)
        case .command(let pdu):
            guard !(connections[slot: slot].supportedFeatures.contains(.robustCaching) && connections[slot: slot].awareness != .aware)
            else {
                return nil // Commands from a change-unaware client are ignored (Vol 3 Part G §2.5.2.1).
            }
            core.serve(pdu, raw: raw, resolved: nil, id, &connections[slot: slot], now: now, &out)
        case .confirmation:
            confirmIndication(on: id, at: now, into: &out)
        case .closed(let reason, _, _):
            guard var client = connections.removeValue(forKey: id) else { return nil }
            failIndications(&client, id, reason, &out)
            // Our own requests on the link fail with it; the close itself is reported once,
            // as the server's `connectionClosed`.
            var actions: [GATTClientAction] = []
            client.clientHandle(event, bytes: raw, at: now, into: &actions)
            out.take(actions.filter(\.isCompletion), from: id)
            if let peer = client.peer { store.save(client.bondedState, for: peer) }
            out.events.append(.connectionClosed(id, reason))
            return client
        case .response, .malformedResponse, .notification, .multipleNotification, .indication:
            // Answers to our own requests on this link, and the client's notifications
            // as a server: the link's client engine takes them.
            var actions: [GATTClientAction] = []
            connections[slot: slot].clientHandle(event, bytes: raw, at: now, into: &actions)
            out.take(actions, from: id)
            return nil
        case .handled, .dropped:
            break
        }
        // Bonded clients' state is saved when an event may have changed it, not on every read.
        if connections[slot: slot].peer != nil && Self.mayChangeClientState(event) { persistState(of: id) }
        if !connections[slot: slot].indicationInFlight,
           connections[slot: slot].indicationHead < connections[slot: slot].indications.count {
            pumpIndications(on: id, at: now, into: &out)
        }
        return nil
    }

    static func mayChangeClientState(_ event: ATTBearerEvent) -> Bool {
        switch event {
        case .request(let pdu):
            switch pdu {
            case .writeRequest, .executeWriteRequest, .readByTypeRequest: return true
            default: return false
            }
        case .command, .confirmation: return true
        default: return false
        }
    }

    /// Robust caching: a change-unaware client's first request gets Database Out Of Sync;
    /// the next one (or reading the Database Hash) makes it change-aware.
    mutating func admit(_ pdu: ATTClientPDU, slot: Int, from id: ConnectionID, into out: inout GATTServerOutput) -> Bool {
        guard connections[slot: slot].supportedFeatures.contains(.robustCaching),
              connections[slot: slot].awareness != .aware
        else { return true }
        if case .exchangeMTURequest = pdu { return true }
        if case .readByTypeRequest(let r) = pdu, r.attributeType == GATTAttributeType.databaseHash { return true }
        switch connections[slot: slot].awareness {
        case .aware:
            return true
        case .toldOutOfSync:
            connections[slot: slot].awareness = .aware
            persistState(of: id)
            return true
        case .unaware:
            connections[slot: slot].awareness = .toldOutOfSync
            core.fail(.databaseOutOfSync, .reserved, id, &connections[slot: slot], &out)
            return false
        }
    }

    // MARK: - Time

    /// The earliest time ``tick(at:into:)`` must run: a transaction timeout or an
    /// application deadline.
    public var deadline: MonotonicTime? {
        // Read after every output the manager flushes: see the table's reading.
        connections.earliestDeadline
    }

    /// Fires expired deadlines: application answers that came too late get Unlikely Error;
    /// an unconfirmed indication closes its bearer.
    public mutating func tick(at now: MonotonicTime, into out: inout GATTServerOutput) {
        for id in Array(connections.keys) {
            if let p = connections[id]?.pending, p.deadline <= now {
                connections[id]!.pending = nil
                out.events.append(.applicationRequestExpired(p.id))
                core.fail(.unlikelyError, p.handle, id, &connections[id]!, &out)
            }
            if let event = connections[id]?.bearer.tick(at: now) {
                process(event, raw: [], from: id, at: now, into: &out)
            }
            if connections[id]?.client.discoveryDeadline.map({ $0 <= now }) == true {
                var actions: [GATTClientAction] = []
                connections[id]!.clientTick(at: now, into: &actions)
                out.take(actions, from: id)
            }
            pumpIndications(on: id, at: now, into: &out)
        }
    }

    // MARK: - Application answers

    /// Answers a ``GATTServerEvent/readRequested(_:)``. Returns false when the request is
    /// unknown or expired (its client already got Unlikely Error).
    @discardableResult
    public mutating func completeRead(_ request: ApplicationRequestID, with result: Result<[UInt8], ATTErrorCode>,
                                      at now: MonotonicTime, into out: inout GATTServerOutput) -> Bool {
        guard let id = connection(waitingFor: request), let p = connections[id]!.pending,
              case .read(let handle) = p.kind else { return false }
        connections[id]!.pending = nil
        switch result {
        case .failure(let code):
            core.fail(code, handle, id, &connections[id]!, &out)
        case .success(let value):
            var resolved = p.resolved
            resolved[handle] = value
            guard let pdu = try? ATTClientPDU.decode(p.request) else { return false }
            core.serve(pdu, raw: p.request[...], resolved: resolved, id, &connections[id]!, now: now, &out)
        }
        return true
    }

    /// Answers a ``GATTServerEvent/writeRequested(_:)`` that expects a response: nil for
    /// success, or the ATT error for the client. Returns false when unknown or expired.
    @discardableResult
    public mutating func completeWrite(_ request: ApplicationRequestID, error: ATTErrorCode?,
                                       at now: MonotonicTime, into out: inout GATTServerOutput) -> Bool {
        guard let id = connection(waitingFor: request), let p = connections[id]!.pending else { return false }
        connections[id]!.pending = nil
        if let error { core.fail(error, p.handle, id, &connections[id]!, &out); return true }
        switch p.kind {
        case .write:
            core.respond(WriteResponse(), id, &connections[id]!, &out)
        case .execute(let stored):
            for (i, v) in stored { core.commitWrite(i, v[...], id, &connections[id]!, &out) }
            core.respond(ExecuteWriteResponse(), id, &connections[id]!, &out)
        case .read:
            return false
        }
        return true
    }

    func connection(waitingFor request: ApplicationRequestID) -> ConnectionID? {
        connections.first { $1.pending?.id == request }
    }

    // MARK: - Local values

    /// Sets a stored value from the application (no notification is sent; see ``notify``).
    public mutating func setValue(_ value: [UInt8], for handle: AttributeHandle) throws(GATTServerError) {
        guard let i = core.database.index(of: handle) else { throw .notACharacteristicValue(handle) }
        core.database.setValue(value, at: i)
    }
}
