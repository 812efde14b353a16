import ATT

extension GATTServer {
    /// Gives a connected client's link a configured client engine and starts it (Exchange
    /// MTU and discovery as configured, subscriptions in `restoring` written again), for a
    /// peripheral that also reads the central's own database. Its PDUs go into `out`;
    /// what it reports comes as ``GATTServerEvent/client(_:_:)`` events.
    public mutating func startClient(on id: ConnectionID, configuration: GATTClientConfiguration,
                                     database: DiscoveredDatabase = DiscoveredDatabase(), restoring: [Subscription] = [],
                                     at now: MonotonicTime, into out: inout GATTServerOutput) {
        guard let slot = connections.slot(of: id) else { return }
        connections[slot: slot].client = GATTClient(configuration: configuration, database: database)
        var actions: [GATTClientAction] = []
        connections[slot: slot].clientStart(restoring: restoring, at: now, into: &actions)
        out.take(actions, from: id)
    }

    /// The client engine of a connected client's link.
    public func client(of id: ConnectionID) -> GATTClient? { connections[id]?.client }

    /// Runs a client command on a connected client's link: ATT is symmetric, so the
    /// central we serve may serve a database of its own (its GAP name, for one). The
    /// command's PDUs go into `out`, and its completion comes later as a
    /// ``GATTServerEvent/client(_:_:)`` event. Nil when `id` is not connected.
    @discardableResult
    public mutating func perform(_ command: GATTClientCommand, on id: ConnectionID, at now: MonotonicTime,
                                 into out: inout GATTServerOutput) -> GATTRequestID? {
        guard let slot = connections.slot(of: id) else { return nil }
        var actions: [GATTClientAction] = []
        let request = connections[slot: slot].clientPerform(command, at: now, into: &actions)
        out.take(actions, from: id)
        return request
    }
}

extension GATTLink {
    // The client engine borrows the bearer it shares with the server half; these run it
    // inside the link value, where both may be borrowed at once.

    mutating func clientHandle(_ event: ATTBearerEvent, bytes: ArraySlice<UInt8>, at now: MonotonicTime,
                               into actions: inout [GATTClientAction]) {
        client.handle(event, bytes: bytes, bearer: &bearer, at: now, into: &actions)
    }

    mutating func clientPerform(_ command: GATTClientCommand, at now: MonotonicTime,
                                into actions: inout [GATTClientAction]) -> GATTRequestID {
        client.perform(command, bearer: &bearer, at: now, into: &actions)
    }

    mutating func clientStart(restoring: [Subscription], at now: MonotonicTime, into actions: inout [GATTClientAction]) {
        client.start(bearer: &bearer, restoring: restoring, at: now, into: &actions)
    }

    mutating func clientTick(at now: MonotonicTime, into actions: inout [GATTClientAction]) {
        client.tick(bearer: &bearer, at: now, into: &actions)
    }
}
