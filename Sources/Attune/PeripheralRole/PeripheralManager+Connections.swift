extension PeripheralManager {
    func accept(_ link: any ATTLink) {
        let id = ConnectionID(nextConnection)
        nextConnection += 1
        let central = Central(address: link.peerAddress, type: link.peerAddressType, connection: id)
        var out = GATTServerOutput()
        server.connect(id, at: now, into: &out)
        let reader = Task { await self.pump(link, id) }
        connected[id] = Connected(link: link, central: central, reader: reader)
        eventBroadcast.yield(.centralConnected(central))
        flush(out)
    }

    /// The link's one path in: a batch per wake-up, straight onto this actor, answered
    /// in one flush.
    private func pump(_ link: any ATTLink, _ id: ConnectionID) async {
        while connected[id] != nil {
            let batch = await link.receive()
            guard !batch.isEmpty, let entry = connected[id] else { return }
            let at = now
            var out = GATTServerOutput()
            for event in batch {
                switch event {
                case .received(let pdu):
                    server.receive(pdu[...], from: id, at: at, into: &out)
                case .closed(let reason):
                    connected.removeValue(forKey: id)
                    server.disconnect(id, into: &out)
                    eventBroadcast.yield(.centralDisconnected(entry.central, reason))
                }
            }
            flush(out)
        }
    }

    /// Sends what the server produced and hands its events on.
    func flush(_ out: GATTServerOutput) {
        for pdu in out.pdus {
            connected[pdu.connection]?.link.send(Array(out.bytes(of: pdu)))
        }
        for event in out.events { handle(event) }
        if let deadline = server.deadline { schedule(deadline) }
    }

    private func handle(_ event: GATTServerEvent) {
        switch event {
        case .readRequested(let r):
            guard let central = connected[r.connection]?.central else { return }
            queue(ATTRequest(
                id: r.id, kind: .read, central: central, handle: r.handle,
                characteristicUUID: server.database.characteristic(containing: r.handle)?.uuid,
                offset: 0, value: [], writes: []))
        case .writeRequested(let w):
            guard let central = connected[w.connection]?.central, let first = w.writes.first else { return }
            queue(ATTRequest(
                id: w.id, kind: .write(expectsResponse: w.expectsResponse), central: central, handle: first.handle,
                characteristicUUID: server.database.characteristic(containing: first.handle)?.uuid,
                offset: first.offset, value: first.value, writes: w.writes))
        case let .valueWritten(id, handle):
            guard let central = connected[id]?.central else { return }
            eventBroadcast.yield(.valueWritten(central, handle: handle, value: server.database[handle]?.value ?? []))
        case let .subscriptionChanged(id, characteristic, configuration):
            guard let central = connected[id]?.central else { return }
            eventBroadcast.yield(.subscriptionChanged(central, characteristic: characteristic, configuration))
        case let .indicationCompleted(_, id, outcome):
            guard let central = connected[id]?.central else { return }
            eventBroadcast.yield(.indicationCompleted(central, confirmed: outcome == .confirmed))
        case .applicationRequestExpired(let request):
            eventBroadcast.yield(.requestExpired(request))
        case let .connectionClosed(id, _):
            // The bearer gave up (timeout, protocol violation): end the link too.
            connected[id]?.link.close()
        case .signedWriteDropped:
            break
        }
    }

    /// Hands a request to the application; when ``requests`` already holds as many as it
    /// may, the request is answered at once with Insufficient Resources (0x11) instead of
    /// being left to time out, and counted.
    private func queue(_ request: ATTRequest) {
        guard case .dropped(let refused) = requestContinuation.yield(request) else { return }
        refusedRequests += 1
        if refused.needsResponse { respond(to: refused, withResult: .failure(.insufficientResources)) }
        eventBroadcast.yield(.requestRefused(refused))
    }

    /// Answers a request from ``requests``, like `respond(to:withResult:)`: the value
    /// for a read (from ``ATTRequest/offset`` on, as the server asked), empty for a
    /// write, or the ATT error to send. Returns false when the request is unknown or
    /// already expired.
    @discardableResult
    public func respond(to request: ATTRequest, withResult result: Result<[UInt8], ATTErrorCode>) -> Bool {
        var out = GATTServerOutput()
        let answered: Bool
        switch request.kind {
        case .read:
            answered = server.completeRead(request.id, with: result, at: now, into: &out)
        case .write(expectsResponse: true):
            var code: ATTErrorCode?
            if case .failure(let e) = result { code = e }
            answered = server.completeWrite(request.id, error: code, at: now, into: &out)
        case .write(expectsResponse: false):
            answered = true
        }
        flush(out)
        return answered
    }

    /// Sends a new value to subscribed centrals (notification or indication, as each
    /// subscribed), like `updateValue(_:for:onSubscribedCentrals:)`. Returns false, and
    /// sends nothing, when a link has no room: wait for ``readyToUpdateSubscribers()``
    /// and try again. The stored value is updated too.
    @discardableResult
    public func updateValue(_ value: [UInt8], for characteristic: PublishedCharacteristic,
                            onSubscribedCentrals centrals: [Central]? = nil) -> Bool {
        let targets = subscribedCentrals(for: characteristic).filter { c in
            centrals?.contains { $0.connection == c.connection } ?? true
        }
        guard targets.allSatisfy({ connected[$0.connection]?.link.canSend ?? true }) else { return false }
        try? server.setValue(value, for: characteristic.valueHandle)
        var out = GATTServerOutput()
        for central in targets {
            let configuration = server.clientConfiguration(of: central.connection, characteristic: characteristic.valueHandle)
            if configuration.contains(.notification) {
                _ = try? server.notify(value, characteristic: characteristic.valueHandle, to: [central.connection], into: &out)
            } else if configuration.contains(.indication) {
                do {
                    _ = try server.indicate(value, characteristic: characteristic.valueHandle, to: [central.connection],
                                            at: now, into: &out)
                } catch {
                    flush(out)
                    return false
                }
            }
        }
        flush(out)
        return true
    }

    /// Returns when every connected central's link has room again: the
    /// `peripheralManagerIsReady(toUpdateSubscribers:)` signal.
    public func readyToUpdateSubscribers() async {
        for entry in connected.values { await entry.link.sendReady() }
    }

    /// The centrals subscribed to a characteristic.
    public func subscribedCentrals(for characteristic: PublishedCharacteristic) -> [Central] {
        connectedCentrals.filter {
            !server.clientConfiguration(of: $0.connection, characteristic: characteristic.valueHandle).isEmpty
        }
    }

    /// The longest value one update can carry to `central`: its ATT_MTU − 3.
    public func maximumUpdateValueLength(for central: Central) -> Int {
        (server.mtu(of: central.connection) ?? 23) - 3
    }

    /// Disconnects a central.
    public func disconnect(_ central: Central) {
        connected[central.connection]?.link.close()
    }

    // MARK: Time

    func schedule(_ time: MonotonicTime) {
        timer.schedule(time, at: clock.instant(time)) { [self] in await fire() }
    }

    private func fire() {
        timer.fired()
        var out = GATTServerOutput()
        server.tick(at: now, into: &out)
        flush(out)
    }
}
