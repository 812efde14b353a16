import Transport

extension PeripheralManager {
    func accept(_ link: any ATTLink) {
        let id = ConnectionID(nextConnection)
        nextConnection += 1
        let central = Central(address: link.peerAddress, type: link.peerAddressType, connection: id)
        var out = makeOutput()
        server.connect(id, at: now, into: &out)
        let reader = Task { await self.pump(link, id) }
        connected[id] = Connected(link: link, central: central, reader: reader)
        // The connection stopped connectable advertising in the controller.
        advertisingEnabled = false
        updateAdvertising()
        eventBroadcast.yield(.centralConnected(central))
        flush(out)
    }

    /// The link's one path in: a batch per wake-up, straight onto this actor, answered
    /// in one flush.
    private func pump(_ link: any ATTLink, _ id: ConnectionID) async {
        while connected[id] != nil {
            var batch = await link.receive()
            guard !batch.isEmpty, let entry = connected[id] else { return }
            // Its storage goes back to the link for a later batch.
            defer { link.recycle(&batch) }
            let at = now
            var out = makeOutput()
            // The link's security as of this batch: an Encryption Change is handled
            // before any ATT PDU that followed it, so requests are checked at their level.
            inServer { $0.updateSecurity(link.security, for: id) }
            for event in batch {
                switch event {
                case .received(let pdu) where pdu.first == ATTOpcode.signedWriteCommand.rawValue:
                    verifySignedWrite(pdu, from: id, at: at, into: &out)
                case .received(let pdu):
                    server.receive(pdu[...], from: id, at: at, into: &out)
                case .closed(let reason):
                    connected.removeValue(forKey: id)
                    server.disconnect(id, into: &out)
                    updateAdvertising(again: true)
                    eventBroadcast.yield(.centralDisconnected(entry.central, reason))
                    if connected.isEmpty { releaseDisconnectWaiters() }
                }
            }
            flush(out)
        }
    }

    /// Runs `body` on the server in place: a plain read of a struct held by an actor
    /// copies it whole (every buffer retained), which the notification path cannot afford.
    @inline(__always)
    func inServer<R>(_ body: (inout GATTServer) -> R) -> R { body(&server) }

    /// An empty output for the server, reusing the last one's storage, so the request
    /// and notification paths allocate no buffers of their own.
    func makeOutput() -> GATTServerOutput {
        guard var out = spareOutput else { return GATTServerOutput() }
        spareOutput = nil
        out.removeAll()
        return out
    }

    /// Sends what the server produced and hands its events on; keeps the storage.
    func flush(_ out: GATTServerOutput) {
        for pdu in out.pdus {
            connected[pdu.connection]?.link.send(out.bytes(of: pdu))
        }
        for event in out.events { handle(event) }
        if let deadline = inServer({ $0.deadline }) { schedule(deadline) }
        spareOutput = out
    }

    private func handle(_ event: GATTServerEvent) {
        switch event {
        case .readRequested(let r):
            guard let central = connected[r.connection]?.central else { return }
            queue(ATTRequest(
                id: r.id, kind: .read, central: central, handle: r.handle,
                characteristicUUID: server.database.characteristic(containing: r.handle)?.uuid,
                offset: r.offset, value: [], writes: []))
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
        case let .client(id, action):
            // The manager issues no client commands of its own (nor does Core Bluetooth's
            // peripheral manager), so only a central acting as a server lands here: values
            // it notifies unasked have no subscriber and are dropped, as on any stack.
            // A client engine that gave the bearer up ends the link.
            if case .close = action { connected[id]?.link.close() }
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
        var out = makeOutput()
        let answered: Bool
        switch request.kind {
        case .read:
            // The application answers from the offset on, as Core Bluetooth's does; the
            // server applies a Read Blob's offset to the value it is given, so the bytes
            // before the offset are stood in for.
            let value = result.map { request.offset > 0 ? [UInt8](repeating: 0, count: request.offset) + $0 : $0 }
            answered = server.completeRead(request.id, with: value, at: now, into: &out)
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
    ///
    /// One pass: each link's subscription is read once, and the value is encoded once,
    /// into the server's output, from which each transport takes the PDU: the kernel's
    /// socket copies it in place (2 copies in all), the memory link into the PDU it hands
    /// the peer (2), the userland host into its ACL packets, H4 output, outbox and socket
    /// (5), framing the PDU straight from the output.
    @discardableResult
    public func updateValue(_ value: [UInt8], for characteristic: PublishedCharacteristic,
                            onSubscribedCentrals centrals: [Central]? = nil) -> Bool {
        let handle = characteristic.valueHandle
        // One pass over the links, each subscription read once, into a reused list: this
        // is the notification hot path. The update then sends by the slots found here.
        var subscribers = spareSubscribers
        // Taken out first: emptying a list still held here would allocate a new one.
        spareSubscribers = []
        subscribers.removeAll(keepingCapacity: true)
        defer { spareSubscribers = subscribers }
        // Through `inServer`: a plain call with a closure argument copies the whole
        // server first, as the closure could change the actor's state under it.
        inServer { server in
            server.subscribers(of: handle, where: { id in centrals?.contains { $0.connection == id } ?? true },
                               into: &subscribers)
        }
        for subscriber in subscribers {
            guard let link = connected[subscriber.connection]?.link else { continue }
            // A link that ended is removed by its own task, which may not have run yet:
            // nothing sent on it arrives, so it neither receives nor holds the others up.
            // Asked only of a link without room, to keep a lock off the hot path.
            guard link.canSend || link.hasEnded else { return false }
        }
        var out = makeOutput()
        do {
            try server.update(value, characteristic: handle, to: subscribers, at: now, into: &out)
        } catch {
            flush(out)
            return false
        }
        flush(out)
        return true
    }

    /// Returns when every connected central's link has room again: the
    /// `peripheralManagerIsReady(toUpdateSubscribers:)` signal.
    public func readyToUpdateSubscribers() async {
        for entry in connected.values where !entry.link.hasEnded { await entry.link.sendReady() }
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

    /// Stops advertising, disconnects every central and returns once each link is down,
    /// or after `timeout` for a controller that no longer answers: what a process does
    /// before it exits, so that centrals see the link end (HCI Disconnect, Remote User
    /// Terminated Connection, on the userland host) instead of waiting out a timeout.
    public func disconnectAll(timeout: Duration = .seconds(2)) async {
        stopAdvertising()
        await backend.settle()
        guard !connected.isEmpty else { return }
        let giveUp = Task { [self] in
            try? await Task.sleep(for: timeout)
            releaseDisconnectWaiters()
        }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            disconnectWaiters.append(done)
            for entry in connected.values { entry.link.close() }
        }
        giveUp.cancel()
    }

    func releaseDisconnectWaiters() {
        for waiter in disconnectWaiters { waiter.resume() }
        disconnectWaiters = []
    }

    // MARK: Time

    func schedule(_ time: MonotonicTime) {
        timer.schedule(time, at: clock.instant(time)) { [self] in await fire() }
    }

    private func fire() {
        timer.fired()
        var out = makeOutput()
        server.tick(at: now, into: &out)
        flush(out)
    }
}
