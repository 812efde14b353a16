import ATT

/// A link where we are only the client (a central that serves nothing, conformance
/// vectors, tests): bytes and time in, ``GATTClientAction``s out. Requests from the peer
/// get Request Not Supported, since no database is served here; a ``GATTServer``'s links
/// are fed through ``GATTServer/receive(_:from:at:into:)`` instead, which runs both engines.
extension GATTLink {
    /// A client-only link whose bearer offers `configuration.rxMTU` and times out after
    /// `configuration.transactionTimeout`; `database` seeds the client's cache.
    public init(configuration: GATTClientConfiguration = GATTClientConfiguration(), database: DiscoveredDatabase = DiscoveredDatabase()) {
        self.init(bearer: ATTBearer(rxMTU: configuration.rxMTU, transactionTimeout: configuration.transactionTimeout),
                  client: GATTClient(configuration: configuration, database: database),
                  security: .none, peer: nil, prepareLimit: 0)
    }

    /// The ATT_MTU in force.
    public var mtu: Int { bearer.mtu }

    /// Runs the configured start-up (Exchange MTU, discovery, then the CCCD writes that
    /// restore `restoring`).
    public mutating func start(restoring: [Subscription] = [], at now: MonotonicTime) -> [GATTClientAction] {
        var actions: [GATTClientAction] = []
        start(restoring: restoring, at: now, into: &actions)
        return actions
    }

    /// The same, appending to a caller-owned action list.
    public mutating func start(restoring: [Subscription] = [], at now: MonotonicTime, into actions: inout [GATTClientAction]) {
        client.start(bearer: &bearer, restoring: restoring, at: now, into: &actions)
    }

    /// Queues a command.
    public mutating func perform(_ command: GATTClientCommand, at now: MonotonicTime) -> (id: GATTRequestID, actions: [GATTClientAction]) {
        var actions: [GATTClientAction] = []
        let id = perform(command, at: now, into: &actions)
        return (id, actions)
    }

    /// Queues a command, appending to a caller-owned action list.
    public mutating func perform(_ command: GATTClientCommand, at now: MonotonicTime,
                                 into actions: inout [GATTClientAction]) -> GATTRequestID {
        client.perform(command, bearer: &bearer, at: now, into: &actions)
    }

    /// Cancels a command.
    public mutating func cancel(_ id: GATTRequestID, at now: MonotonicTime) -> [GATTClientAction] {
        var actions: [GATTClientAction] = []
        client.cancel(id, bearer: &bearer, at: now, into: &actions)
        return actions
    }

    /// Takes one complete ATT PDU from the peer.
    public mutating func receive(_ bytes: ArraySlice<UInt8>, at now: MonotonicTime) -> [GATTClientAction] {
        var actions: [GATTClientAction] = []
        receive(bytes, at: now, into: &actions)
        return actions
    }

    /// Takes one complete ATT PDU from the peer, appending to a caller-owned action list
    /// (the allocation-free path for notification-heavy links).
    public mutating func receive(_ bytes: ArraySlice<UInt8>, at now: MonotonicTime, into actions: inout [GATTClientAction]) {
        var reply: [UInt8] = []
        let event = bearer.receive(bytes, at: now, into: &reply)
        if !reply.isEmpty { actions.append(.send(reply)) }
        if case .request = event {
            var answer: [UInt8] = []
            if (try? bearer.sendErrorResponse(.requestNotSupported, handle: .reserved, into: &answer)) != nil {
                actions.append(.send(answer))
            }
            return
        }
        client.handle(event, bytes: bytes, bearer: &bearer, at: now, into: &actions)
    }

    /// When ``tick(at:)`` must next be called: the earlier of the bearer's transaction
    /// timeout and the client's discovery deadline.
    public var deadline: MonotonicTime? { GATTClient.earliest(bearer.deadline, client.discoveryDeadline) }

    /// Fires the transaction timeout and the discovery timeout when due.
    public mutating func tick(at now: MonotonicTime) -> [GATTClientAction] {
        var actions: [GATTClientAction] = []
        tick(at: now, into: &actions)
        return actions
    }

    /// The same, appending to a caller-owned action list.
    public mutating func tick(at now: MonotonicTime, into actions: inout [GATTClientAction]) {
        if let event = bearer.tick(at: now) {
            client.handle(event, bytes: [], bearer: &bearer, at: now, into: &actions)
        }
        client.tick(bearer: &bearer, at: now, into: &actions)
    }

    /// The link went away: everything pending fails with ``GATTClientError/bearerClosed``.
    public mutating func close(because reason: String, at now: MonotonicTime) -> [GATTClientAction] {
        var actions: [GATTClientAction] = []
        let event = bearer.close(because: reason)
        client.handle(event, bytes: [], bearer: &bearer, at: now, into: &actions)
        return actions
    }

    /// Tells the client whether the link is now encrypted.
    public mutating func setLinkEncrypted(_ encrypted: Bool) { client.linkEncrypted = encrypted }
}
