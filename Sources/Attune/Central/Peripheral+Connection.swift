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
                run(lifecycle.connect(at: now))
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
        run(lifecycle.cancel(at: now))
    }

    /// Cancels the connection and returns once the link reports itself down: on the
    /// userland host, after HCI Disconnect went out and Disconnection Complete came
    /// back; on the kernel, once the socket is closed. So a process that ends right
    /// after has told the peer, which otherwise waits out its supervision timeout.
    /// A controller that never answers is given up on after `timeout`.
    func disconnectAndWait(timeout: Duration) async {
        guard link != nil else {
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

    /// Carries out what the lifecycle machine asks for.
    func run(_ actions: [LifecycleAction]) {
        for action in actions {
            switch action {
            case .openLink:
                openLink()
            case .closeLink:
                closeLink()
            case .exchangeMTU:
                issue(.exchangeMTU, .mtu)
            case .discoverDatabase:
                // The engine was seeded with the cache when the link came up: it validates
                // it through the Database Hash, or discovers afresh.
                issue(.refreshDatabase, .discovery)
            case .saveCache(let cache):
                try? store.update(address: address, type: addressType) { $0.cache = cache }
            case .resubscribe(let list):
                for s in list { issue(.writeValue(s.configurationHandle, Self.cccd(s.kind.clientConfiguration)), .resubscribe(s)) }
            case .saveSubscriptions(let list):
                try? store.update(address: address, type: addressType) { $0.subscriptions = list }
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
        case let .subscriptionEnded(subscription, error):
            // A subscription the link took down ends with what took the link down.
            var cause = error
            if case .peripheralDisconnected = error, let failure = bearerFailure?.error { cause = failure }
            finishListeners(subscription.valueHandle, error: cause)
        default:
            break
        }
        lifecycleBroadcast.yield(event)
    }

    static func cccd(_ value: UInt16) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
    }

    // MARK: Link

    private func openLink() {
        generation += 1
        let attempt = generation
        let backend = self.backend, address = self.address, type = self.addressType
        connectTask = Task {
            do throws(AttuneError) {
                let link = try await backend.connect(to: address, type: type)
                self.linkEstablished(link, attempt)
            } catch {
                self.linkAttemptFailed(error, attempt)
            }
        }
    }

    private func closeLink() {
        connectTask?.cancel()
        connectTask = nil
        if let link {
            link.close()
        } else {
            generation += 1
        }
    }

    private func linkEstablished(_ link: any ATTLink, _ attempt: Int) {
        guard attempt == generation, lifecycle.connectionState == .connecting else {
            link.close()
            return
        }
        connectTask = nil
        self.link = link
        let configuration = GATTClientConfiguration(
            rxMTU: UInt16(clamping: lifecycle.configuration.preferredMTU), canRaiseSecurity: true,
            transactionTimeout: transactionTimeout, discoveryTimeout: lifecycle.configuration.discoveryTimeout, exchangesMTUOnStart: false, discoversOnStart: false)
        seededDatabase = lifecycle.cache?.databaseHash == nil ? nil : lifecycle.cache?.discoveredDatabase
        connection = GATTClientConnection(configuration: configuration, database: seededDatabase ?? DiscoveredDatabase())
        securityFailure = nil
        bearerFailure = nil
        heldForSecurity = nil
        readerTask = Task { await self.pump(link, attempt) }
        try? store.update(address: address, type: addressType) { record in
            if let name { record.name = name }
        }
        run(lifecycle.linkUp(at: now))
    }

    private func linkAttemptFailed(_ error: AttuneError, _ attempt: Int) {
        guard attempt == generation else { return }
        connectTask = nil
        let reason: DisconnectReason
        switch error {
        case .connectionFailed(let r), .peripheralDisconnected(let r): reason = r
        case .cancelled: reason = .cancelled
        default: reason = .transport(error.description)
        }
        run(lifecycle.linkFailed(reason, at: now))
    }

    /// The link's one path in: a batch per wake-up, straight onto this actor, and no
    /// further batch while a notification consumer is full.
    private func pump(_ link: any ATTLink, _ attempt: Int) async {
        while attempt == generation {
            let batch = await link.receive()
            guard !batch.isEmpty, attempt == generation else { return }
            batchReceivedAt = .now
            let at = now
            batchNotifications = 0
            for event in batch { linkEvent(event, attempt, at) }
            let notified = batchNotifications
            counters.update {
                $0.batchesReceived += 1
                $0.pdusReceived += batch.count
                $0.notificationsReceived += notified
            }
            await waitForListeners()
        }
    }

    private func linkEvent(_ event: LinkEvent, _ attempt: Int, _ at: MonotonicTime) {
        guard attempt == generation, link != nil else { return }
        switch event {
        case .received(let pdu):
            guard connection != nil else { return }
            // The engine appends into reused storage: one list per link, not per PDU.
            var actions = spareActions
            spareActions = []
            actions.removeAll(keepingCapacity: true)
            connection!.receive(pdu[...], at: at, into: &actions)
            apply(actions)
            spareActions = actions
        case .closed(let reason):
            generation += 1
            self.link = nil
            connection = nil
            readerTask = nil
            // When the engine closed the bearer, our own close is what the link reports
            // (0x16, a socket closed): the bearer's reason is the one worth keeping.
            run(lifecycle.linkDown(bearerFailure?.reason ?? reason, at: now))
            // Told to everything the loss failed; a later attempt fails for its own reasons.
            bearerFailure = nil
            releaseLinkClosedWaiters()
        }
    }

    // MARK: Client engine

    /// Queues a client command for `waiter`.
    func issue(_ command: GATTClientCommand, _ waiter: Waiter) {
        guard connection != nil else {
            if case .application(let c) = waiter { c.resume(throwing: AttuneError.notConnected) }
            return
        }
        let (id, actions) = connection!.perform(command, at: now)
        waiters[id] = waiter
        apply(actions)
    }

    /// Runs a client command for the application.
    func request(_ command: GATTClientCommand) async throws(AttuneError) -> GATTClientResponse {
        guard lifecycle.connectionState == .connected, connection != nil else { throw .notConnected }
        do {
            return try await withCheckedThrowingContinuation { (c: CheckedContinuation<GATTClientResponse, any Error>) in
                issue(command, .application(c))
            }
        } catch let error as AttuneError {
            throw error
        } catch {
            throw .cancelled
        }
    }

    /// Carries out what the client engine asks for.
    func apply(_ actions: [GATTClientAction]) {
        for action in actions {
            switch action {
            case .send(let bytes):
                if heldForSecurity != nil {
                    heldForSecurity!.append(bytes)
                } else {
                    link?.send(bytes)
                }
            case let .complete(id, result):
                if let waiter = waiters.removeValue(forKey: id) { complete(waiter, result) }
            case .deliver(.notification(let handle, let value)):
                yieldValue(value, isIndication: false, for: handle)
            case .deliver(.indication(let handle, let value)):
                yieldValue(value, isIndication: true, for: handle)
            case .deliver(.servicesChanged):
                // The engine rediscovered what changed; keep its view as the cache.
                if let database = connection?.client.database {
                    run(lifecycle.databaseDiscovered(GATTCache(database)))
                    revealed = nil
                }
            case .raiseSecurity:
                // The engine repeats its request once the link is more secure: hold what
                // it sends until the transport has raised security (or failed to).
                if heldForSecurity == nil {
                    heldForSecurity = []
                    raiseSecurity()
                }
            case .deliver(.ready), .deliver(.dropped):
                break
            case .scheduleDeadline(let deadline):
                if let deadline { schedule(deadline) }
            case .close(let error):
                // The bearer is dead (Vol 3 Part F §3.3.3 for a timeout): keep why, so
                // pending operations and a waiting connect fail with the cause, then close.
                if bearerFailure == nil {
                    let closeReason = connection?.bearer.closeReason
                    bearerFailure = (AttuneError(error, closedBy: closeReason),
                                     closeReason.map { .attBearerClosed($0) } ?? .attBearerClosed(.local(error.description)))
                }
                link?.close()
            case .deliver(.startupFailed):
                // A bootstrap that cannot finish leaves no usable database; closing lets
                // the lifecycle report the disconnect with its reason.
                link?.close()
            }
        }
    }

    /// Raises the link's security through the transport, then releases the PDUs the
    /// engine queued behind it. When the transport cannot, the repeated request goes out
    /// anyway, and its security error is reported with the reason.
    private func raiseSecurity() {
        guard let link else { return }
        let attempt = generation
        Task {
            var failure: AttuneError?
            do throws(AttuneError) {
                try await link.raiseSecurity()
            } catch {
                failure = error
            }
            self.securityRaised(failure, attempt)
        }
    }

    private func securityRaised(_ failure: AttuneError?, _ attempt: Int) {
        guard attempt == generation else { return }
        if failure == nil, connection != nil { connection!.setLinkEncrypted(true) }
        securityFailure = failure
        let held = heldForSecurity ?? []
        heldForSecurity = nil
        for pdu in held { link?.send(pdu) }
    }

    private func complete(_ waiter: Waiter, _ result: Result<GATTClientResponse, GATTClientError>) {
        switch waiter {
        case .application(let c):
            switch result {
            case .success(let response): c.resume(returning: response)
            case .failure(let error):
                c.resume(throwing: reported(error))
            }
        case .mtu:
            // A dead bearer ends the connection: the link's close reports it.
            if connection?.client.isClosed ?? true { return }
            if case .success(.mtu(let mtu)) = result {
                run(lifecycle.mtuExchanged(mtu, at: now))
            } else {
                run(lifecycle.mtuExchanged(connection?.mtu ?? 23, at: now))
            }
        case .discovery:
            if case .success(.database(let database)) = result {
                let before = lifecycle.subscriptions
                run(lifecycle.discoveryCompleted(GATTCache(database).services, databaseHash: database.databaseHash,
                                                 cacheHit: seededDatabase != nil && database == seededDatabase, at: now))
                moveListeners(from: before, to: lifecycle.subscriptions)
            } else if connection?.client.isClosed ?? true {
                // Not a discovery that failed but a bearer that died (timeout, protocol
                // violation): going on without a cache would report the connection ready
                // on a closed bearer, and the cause would be lost. The link's close fails
                // the connect with it instead.
                return
            } else {
                run(lifecycle.discoveryFailed(at: now))
            }
        case .resubscribe(let subscription):
            if connection?.client.isClosed ?? true { return }
            var error: AttuneError?
            if case .failure(let e) = result { error = AttuneError(e) }
            run(lifecycle.resubscribeCompleted(subscription, error: error, at: now))
        }
    }

    /// The public error for a failed application command. A security error the
    /// transport could not cure says what the attribute needs and what failed.
    private func reported(_ error: GATTClientError) -> AttuneError {
        let reported = AttuneError(error, closedBy: connection?.bearer.closeReason)
        guard case .att(let code) = reported, code.isSecurityError else { return reported }
        let answered = "the peripheral answered ATT error \(code) (\(code.securityRequirement ?? code.explanation))"
        if let why = securityFailure {
            // The peer still wants more security and we could not give it: say why.
            return why.adding(answered)
        }
        if connection?.client.linkEncrypted == true {
            // Raised, yet refused: the bond is not strong enough for this attribute.
            return .securityFailed("\(answered) on a link the transport encrypted; the attribute may need a bond "
                + "with MITM protection: remove the bond and pair again with an agent that can confirm a passkey "
                + "(bluetoothctl remove \(address), then pair \(address) with agent KeyboardDisplay)")
        }
        return reported
    }

    private func failWaiters(_ error: AttuneError) {
        let pending = waiters
        waiters = [:]
        for case .application(let c) in pending.values { c.resume(throwing: error) }
    }

    // MARK: Time

    func schedule(_ time: MonotonicTime) {
        timer.schedule(time, at: clock.instant(time)) { [self] in await fire() }
    }

    private func fire() {
        timer.fired()
        let now = self.now
        run(lifecycle.tick(at: now))
        if connection != nil { apply(connection!.tick(at: now)) }
        if let next = connection?.deadline { schedule(next) }
        if let next = lifecycle.nextDeadline { schedule(next) }
    }
}
