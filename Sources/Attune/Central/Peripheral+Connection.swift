import Transport

extension Peripheral {
    /// Connects, and returns once the connection is ready (MTU exchanged, the GATT
    /// cache validated or the database discovered, subscriptions restored).
    func connect(timeout: Duration, reconnect: ReconnectPolicy, retryFirst: Bool = false,
                 discoverDatabase: Bool = true, preferredMTU: Int? = nil,
                 discoveryTimeout: Duration? = .seconds(60)) async throws(AttuneError) {
        lifecycle.configuration.discoversOnConnect = discoverDatabase
        lifecycle.configuration.discoveryTimeout = discoveryTimeout
        if let preferredMTU { lifecycle.configuration.preferredMTU = preferredMTU }
        lifecycle.configuration.connectTimeout = timeout
        lifecycle.configuration.reconnect = reconnect
        lifecycle.configuration.retriesFirstConnection = retryFirst
        // Marked for restoration: a later process's `resumeAutoConnect()` brings it back,
        // as Core Bluetooth's state restoration does; `cancelConnection` clears the mark.
        let restorable: Bool
        if case .automatic = reconnect { restorable = true } else { restorable = false }
        try? store.update(address: address, type: addressType) { record in
            if let name { record.name = name }
            record.autoConnect = restorable
        }
        if lifecycle.phase == .ready { return }
        do {
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
                connectWaiters.append(waiter)
                drive { $0.connect(at: now, into: &$1) }
            }
        } catch let error as AttuneError {
            throw error
        } catch {
            throw .cancelled
        }
    }

    /// Gives the connection up; no reconnect follows.
    func cancelConnection() {
        try? store.update(address: address, type: addressType) { $0.autoConnect = false }
        drive { $0.cancel(at: now, into: &$1) }
    }

    /// Cancels the connection and returns once the link reports itself down: on the
    /// userland host, after HCI Disconnect went out and Disconnection Complete came
    /// back; on the kernel, once the socket is closed. So a process that ends right
    /// after has told the peer, which otherwise waits out its supervision timeout. A
    /// connect attempt under way is waited for until it has ended (failed, or its link
    /// closed). A controller that never answers is given up on after `timeout`.
    func disconnectAndWait(timeout: Duration) async {
        guard link != nil || lifecycle.phase == .connecting else {
            cancelConnection()
            return
        }
        let giveUp = Task { [self] in
            try? await Task.sleep(for: timeout)
            releaseLinkClosedWaiters()
        }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            linkClosedWaiters.append(done)
            cancelConnection()
        }
        giveUp.cancel()
    }

    func releaseLinkClosedWaiters() {
        for waiter in linkClosedWaiters { waiter.resume() }
        linkClosedWaiters = []
    }

    /// Feeds the lifecycle one input and carries out what it asks for.
    func drive(_ input: (inout ConnectionLifecycle, inout [LifecycleAction]) -> Void) {
        var actions: [LifecycleAction] = []
        input(&lifecycle, &actions)
        run(actions)
    }

    /// Carries out what the lifecycle machine asks for.
    func run(_ actions: [LifecycleAction]) {
        for action in actions {
            switch action {
            case .openLink:
                openLink()
            case .closeLink:
                closeLink()
            case .startGATT:
                startEngine()
            case .endSubscriptions(let error):
                endSubscriptions(error)
            case .failPendingOperations(let reason):
                failWaiters(bearerFailure?.error ?? .peripheralDisconnected(reason))
            case .deliver(let event):
                deliver(event)
            case .schedule(let time):
                schedule(time)
            }
        }
    }

    private func deliver(_ event: LifecycleEvent) {
        switch event {
        case .phase(.ready):
            let waiting = connectWaiters
            connectWaiters = []
            for w in waiting { w.resume() }
        case .connectFailed(let error):
            let waiting = connectWaiters
            connectWaiters = []
            // A bearer the engine closed says why; the disconnection it led to does not.
            let cause = bearerFailure?.error ?? error
            for w in waiting { w.resume(throwing: cause) }
        default:
            break
        }
        lifecycleBroadcast.yield(event)
    }

    /// The connection is gone for good: every subscription ends, its consumers learn
    /// why, and the store forgets it.
    private func endSubscriptions(_ error: AttuneError) {
        let ended = memory.subscriptions
        guard !ended.isEmpty else { return }
        memory.subscriptions = []
        // A subscription the link took down ends with what took the link down.
        var cause = error
        if case .peripheralDisconnected = error, let failure = bearerFailure?.error { cause = failure }
        for subscription in ended {
            finishListeners(subscription.valueHandle, error: cause)
            lifecycleBroadcast.yield(.subscriptionEnded(subscription, cause))
        }
        try? store.update(address: address, type: addressType) { $0.subscriptions = [] }
    }

    // MARK: Link

    private func openLink() {
        generation += 1
        let attempt = generation
        let backend = self.backend
        var (address, type) = airAddress.withLock { $0 } ?? (self.address, self.addressType)
        // A bonded peer known only by a resolvable private address may have moved on to
        // another one: find where it advertises now, then connect there.
        let bond = store.record(for: identifier)?.bond
        let irk = ResolvablePrivateAddress.isResolvable(address, type: type) ? bond?.identityResolvingKey : nil
        connectTask = Task {
            do throws(AttuneError) {
                if let irk {
                    (address, type) = try await PrivateAddressFinder.find(irk: irk, identity: bond?.identityAddress, on: backend)
                    self.airAddress.withLock { $0 = (address, type) }
                }
                let link = try await backend.connect(to: address, type: type)
                self.linkEstablished(link, attempt)
            } catch {
                self.linkAttemptFailed(error, attempt)
            }
        }
    }

    /// Closes the link, or abandons the attempt under way. An abandoned attempt still
    /// reports its end (``linkAttemptFailed(_:_:)``, or a link that is closed at once),
    /// which is what a cancel waits for; an attempt that has been replaced is ignored
    /// by its generation.
    private func closeLink() {
        connectTask?.cancel()
        if let link {
            link.close()
        }
    }

    private func linkEstablished(_ link: any ATTLink, _ attempt: Int) {
        guard attempt == generation, self.link == nil else {
            link.close()
            return
        }
        if lifecycle.phase == .disconnecting {
            // Up after a cancel crossed it: the link is closed, and read until it says it
            // is down, which ends the cancel. Nothing on it reaches an engine.
            connectTask = nil
            self.link = link
            readerTask = Task { await self.pump(link, attempt) }
            link.close()
            return
        }
        guard lifecycle.connectionState == .connecting else {
            link.close()
            return
        }
        connectTask = nil
        self.link = link
        // The engine runs the GATT start-up itself: the MTU, then the cache checked
        // through the Database Hash (a cache without one is rediscovered), then the
        // subscriptions restored. A cache or a subscription to restore needs the database.
        let configuration = GATTClientConfiguration(
            rxMTU: UInt16(clamping: lifecycle.configuration.preferredMTU), canRaiseSecurity: true,
            transactionTimeout: transactionTimeout, discoveryTimeout: lifecycle.configuration.discoveryTimeout,
            exchangesMTUOnStart: true, discoversOnStart: lifecycle.configuration.discoversOnConnect || memory.cache != nil)
        let seeded = memory.cache?.databaseHash == nil ? nil : memory.cache?.discoveredDatabase
        connection = GATTLink(configuration: configuration, database: seeded ?? DiscoveredDatabase())
        // Encrypted with a stored bond before the engine starts (the userland host does it
        // as the link comes up), so signed writes and error reports know.
        if link.isEncrypted { connection!.setLinkEncrypted(true) }
        securityFailure = nil
        bearerFailure = nil
        heldForSecurity = nil
        readerTask = Task { await self.pump(link, attempt) }
        try? store.update(address: address, type: addressType) { record in
            if let name { record.name = name }
        }
        drive { $0.linkUp(at: now, into: &$1) }
    }

    private func linkAttemptFailed(_ error: AttuneError, _ attempt: Int) {
        guard attempt == generation, link == nil else { return }
        connectTask = nil
        defer { releaseLinkClosedWaiters() }
        let reason: DisconnectReason
        switch error {
        case .connectionFailed(let r), .peripheralDisconnected(let r): reason = r
        case .cancelled: reason = .cancelled
        default: reason = .transport(error.description)
        }
        drive { $0.linkFailed(reason, at: now, into: &$1) }
    }

    /// The link's one path in: a batch per wake-up, straight onto this actor, and no
    /// further batch while a notification consumer is full.
    private func pump(_ link: any ATTLink, _ attempt: Int) async {
        while attempt == generation {
            var batch = await link.receive()
            guard !batch.isEmpty, attempt == generation else { return }
            batchReceivedAt = .now
            let at = now
            batchNotifications = 0
            for i in batch.indices {
                // Moved out of the batch, so that a PDU has one owner and its storage can
                // become the value it carries (``linkEvent``).
                var event = LinkEvent.received([])
                swap(&event, &batch[i])
                linkEvent(event, attempt, at)
            }
            let pdus = batch.count
            // Its storage goes back to the link for a later batch.
            link.recycle(&batch)
            let notified = batchNotifications
            let dropped = link.takeDroppedCount()
            // Drops are rare: the notifications among them are asked for only then.
            if dropped > 0 { droppedNotifications.merge(link.takeDroppedNotifications()) }
            counters.update {
                $0.batchesReceived += 1
                $0.pdusReceived += pdus
                $0.notificationsReceived += notified
                $0.pdusDropped += dropped
            }
            await waitForListeners()
        }
    }

    private func linkEvent(_ event: consuming LinkEvent, _ attempt: Int, _ at: MonotonicTime) {
        guard attempt == generation, link != nil else { return }
        if case .received(let pdu) = event {
            // Emptied, so that the PDU has one owner (a switch would hold the event, and
            // with it the PDU, until its end).
            event = .received([])
            received(pdu, at)
            return
        }
        guard case .closed(let reason) = event else { return }
        generation += 1
        self.link = nil
        // The engine held the subscriptions; the next link restores them.
        if let connection { memory.subscriptions = connection.client.subscriptions }
        connection = nil
        readerTask = nil
        // When the engine closed the bearer, our own close is what the link reports
        // (0x16, a socket closed): the bearer's reason is the one worth keeping.
        let cause = bearerFailure?.reason ?? reason
        drive { $0.linkDown(cause, at: now, into: &$1) }
        // Told to everything the loss failed; a later attempt fails for its own reasons.
        bearerFailure = nil
        releaseLinkClosedWaiters()
    }

    /// One PDU from the peer, for the client engine.
    private func received(_ pdu: consuming [UInt8], _ at: MonotonicTime) {
        // The engine appends into reused storage: one list per link, not per PDU.
        var actions = spareActions
        spareActions = []
        actions.removeAll(keepingCapacity: true)
        // Through optional chaining, which changes the engine in place: a separate
        // `connection != nil` test reads the optional out of the actor, a copy of the
        // whole engine per PDU.
        guard connection?.receive(pdu[...], at: at, into: &actions) != nil else {
            spareActions = actions
            return
        }
        let carried = carriedValue(in: actions, of: pdu)
        apply(actions, except: carried?.action)
        actions.removeAll(keepingCapacity: true)
        spareActions = actions
        if let carried {
            // The engine's slices of the PDU are gone with its actions: the PDU's own
            // storage becomes the value, moved down in place instead of copied into an
            // array of its own. Delivered after the PDU's other actions, before the next
            // PDU, as before.
            pdu.removeSubrange(carried.value.upperBound...)
            pdu.removeSubrange(..<carried.value.lowerBound)
            offer(pdu, isIndication: carried.isIndication, for: carried.handle)
        }
    }
}
