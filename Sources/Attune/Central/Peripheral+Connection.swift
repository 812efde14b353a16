extension Peripheral {
    /// Connects, and returns once the connection is ready (MTU exchanged, the GATT
    /// cache validated or the database discovered, subscriptions restored).
    func connect(timeout: Duration, reconnect: ReconnectPolicy, retryFirst: Bool = false,
                 discoverDatabase: Bool = true, preferredMTU: Int? = nil) async throws(AttuneError) {
        lifecycle.configuration.discoversOnConnect = discoverDatabase
        if let preferredMTU { lifecycle.configuration.preferredMTU = preferredMTU }
        lifecycle.configuration.connectTimeout = timeout
        lifecycle.configuration.reconnect = reconnect
        lifecycle.configuration.retriesFirstConnection = retryFirst
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
        run(lifecycle.cancel(at: now))
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
            case .readDatabaseHash:
                issue(.readUsingCharacteristicUUID(GATTAttributeType.databaseHash, in: .all), .databaseHash)
            case .discoverDatabase:
                issue(.discoverDatabase, .discovery)
            case .useCache:
                break  // the client engine was seeded with the cache when the link came up
            case .saveCache(let cache):
                try? store.update(address: address, type: addressType) { $0.cache = cache }
            case .resubscribe(let list):
                for s in list { issue(.writeValue(s.configurationHandle, Self.cccd(s.kind.clientConfiguration)), .resubscribe(s)) }
            case .saveSubscriptions(let list):
                try? store.update(address: address, type: addressType) { $0.subscriptions = list }
            case .failPendingOperations(let reason):
                failWaiters(.peripheralDisconnected(reason))
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
            for w in waiting { w.resume(throwing: error) }
        case let .subscriptionEnded(subscription, error):
            finishListeners(subscription.valueHandle, error: error)
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
            rxMTU: UInt16(clamping: lifecycle.configuration.preferredMTU),
            exchangesMTUOnStart: false, discoversOnStart: false)
        connection = GATTClientConnection(configuration: configuration,
                                          database: lifecycle.cache?.discoveredDatabase ?? DiscoveredDatabase())
        readerTask = Task {
            for await event in link.events {
                self.linkEvent(event, attempt)
            }
        }
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

    private func linkEvent(_ event: LinkEvent, _ attempt: Int) {
        guard attempt == generation, let link else { return }
        switch event {
        case .received(let pdu):
            guard connection != nil else { return }
            let actions = connection!.receive(pdu[...], at: now)
            link.consumed()
            apply(actions)
        case .closed(let reason):
            generation += 1
            self.link = nil
            connection = nil
            readerTask = nil
            run(lifecycle.linkDown(reason, at: now))
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
                link?.send(bytes)
            case let .complete(id, result):
                if let waiter = waiters.removeValue(forKey: id) { complete(waiter, result) }
            case .deliver(.notification(let handle, let value)), .deliver(.indication(let handle, let value)):
                yieldValue(Array(value), for: handle)
            case .deliver(.servicesChanged):
                // The engine rediscovered what changed; keep its view as the cache.
                if let database = connection?.client.database {
                    run(lifecycle.databaseDiscovered(GATTCache(database)))
                    revealed = nil
                }
            case .deliver(.ready), .deliver(.dropped), .raiseSecurity:
                // Attune's userland host refuses pairing, so there is no security to raise.
                break
            case .scheduleDeadline(let deadline):
                if let deadline { schedule(deadline) }
            case .close, .deliver(.startupFailed):
                // A bootstrap that cannot finish leaves no usable database; closing lets
                // the lifecycle report the disconnect with its reason.
                link?.close()
            }
        }
    }

    private func complete(_ waiter: Waiter, _ result: Result<GATTClientResponse, GATTClientError>) {
        switch waiter {
        case .application(let c):
            switch result {
            case .success(let response): c.resume(returning: response)
            case .failure(let error): c.resume(throwing: AttuneError(error))
            }
        case .mtu:
            if case .success(.mtu(let mtu)) = result {
                run(lifecycle.mtuExchanged(mtu, at: now))
            } else {
                run(lifecycle.mtuExchanged(connection?.mtu ?? 23, at: now))
            }
        case .databaseHash:
            if case .success(let response) = result, let value = response.value, value.count == 16 {
                run(lifecycle.databaseHashRead(value, at: now))
            } else {
                run(lifecycle.databaseHashRead(nil, at: now))
            }
        case .discovery:
            if case .success(.database(let database)) = result {
                let before = lifecycle.subscriptions
                run(lifecycle.discoveryCompleted(GATTCache(database).services, databaseHash: database.databaseHash,
                                                 at: now))
                moveListeners(from: before, to: lifecycle.subscriptions)
            } else {
                run(lifecycle.discoveryFailed(at: now))
            }
        case .resubscribe(let subscription):
            var error: AttuneError?
            if case .failure(let e) = result { error = AttuneError(e) }
            run(lifecycle.resubscribeCompleted(subscription, error: error, at: now))
        }
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
        if let next = connection?.bearer.deadline { schedule(next) }
        if let next = lifecycle.nextDeadline { schedule(next) }
    }
}
