import Transport

/// The link's GATT engine (``GATTLink``): commands in, its actions carried
/// out. The engine owns the MTU, the database and its cache check, the long procedures
/// and the subscriptions; this actor only moves bytes, results and events.
extension Peripheral {
    /// The lifecycle asked for the engine's start-up: hand it the subscriptions to
    /// restore (it holds them from now on).
    func startEngine() {
        guard connection != nil else { return }
        let restoring = memory.subscriptions
        memory.subscriptions = []
        var actions: [GATTClientAction] = []
        connection!.start(restoring: restoring, at: now, into: &actions)
        apply(actions)
    }

    /// Queues a client command for the application.
    func issue(_ command: GATTClientCommand, _ waiter: CheckedContinuation<GATTClientResponse, any Error>) {
        guard connection != nil else {
            waiter.resume(throwing: AttuneError.notConnected)
            return
        }
        var actions: [GATTClientAction] = []
        let id = connection!.perform(command, at: now, into: &actions)
        waiters[id] = waiter
        apply(actions)
    }

    /// Runs a client command for the application.
    func request(_ command: GATTClientCommand) async throws(AttuneError) -> GATTClientResponse {
        guard lifecycle.connectionState == .connected, connection != nil else { throw .notConnected }
        do {
            return try await withCheckedThrowingContinuation { (c: CheckedContinuation<GATTClientResponse, any Error>) in
                issue(command, c)
            }
        } catch let error as AttuneError {
            throw error
        } catch {
            throw .cancelled
        }
    }

    /// Carries out what the client engine asks for, then reports how far its start-up is.
    /// The value delivery at `carried` is left to the caller, which hands the PDU's own
    /// storage on as that value.
    func apply(_ actions: [GATTClientAction], except carried: Int? = nil) {
        for (i, action) in actions.enumerated() where i != carried {
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
            case .deliver(let event):
                engineEvent(event)
            case .raiseSecurity:
                // The engine repeats its request once the link is more secure: hold what
                // it sends until the transport has raised security (or failed to).
                if heldForSecurity == nil {
                    heldForSecurity = []
                    raiseSecurity()
                }
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
            }
        }
        reportStartupPhase()
    }

    /// The engine's events other than values.
    private func engineEvent(_ event: GATTClientEvent) {
        switch event {
        case .notification, .indication, .dropped:
            break
        case .ready(let database):
            // Start-up is over. A confirmed cache stays as it is; anything else is kept.
            if let hit = connection?.client.cacheHit { lifecycleBroadcast.yield(.cacheValidated(hit: hit)) }
            if connection?.client.cacheHit != true, lifecycle.configuration.discoversOnConnect || memory.cache != nil
                || !database.services.isEmpty {
                keepCache(GATTCache(database))
            }
            drive { $0.gattReady(at: now, into: &$1) }
        case .startupFailed:
            // A bearer that died (timeout, protocol violation) is reported by the link's
            // close, which fails the connect with the cause. Discovery that failed on a
            // live bearer leaves no usable database: the connection goes on without one.
            guard connection?.client.isClosed == false else { return }
            if connection?.client.cacheHit == false { lifecycleBroadcast.yield(.cacheValidated(hit: false)) }
            memory.cache = nil
            drive { $0.gattReady(at: now, into: &$1) }
        case .servicesChanged:
            // The engine rediscovered what changed; its view is the cache now. During
            // start-up, `.ready` keeps it.
            if lifecycle.phase == .ready, let database = connection?.client.database {
                keepCache(GATTCache(database))
                revealed = nil
            }
        case .subscriptionRestored(let subscription):
            lifecycleBroadcast.yield(.subscriptionRestored(subscription))
        case let .subscriptionEnded(subscription, error):
            let reported = AttuneError(error, closedBy: connection?.bearer.closeReason)
            finishListeners(subscription.valueHandle, error: reported)
            lifecycleBroadcast.yield(.subscriptionEnded(subscription, reported))
        case let .subscriptionMoved(subscription, from):
            moveListeners(from: from, to: subscription.valueHandle)
        case .subscriptionsChanged(let list):
            try? store.update(address: address, type: addressType) { $0.subscriptions = list }
        }
    }

    /// Keeps the cache for this link and the next, and in the store when the store takes
    /// it: a database too big for a record (a peer may declare a service at every
    /// handle) is kept in memory only, the record is written without it, and
    /// ``LifecycleEvent/cacheNotStored(_:)`` says why.
    private func keepCache(_ cache: GATTCache) {
        memory.cache = cache
        let attributes = cache.attributeCount
        do throws(StoreError) {
            // Counted before anything is encoded: such a tree would encode to tens of MB.
            guard attributes <= GATTCache.maximumAttributes else {
                throw StoreError(operation: "cache", path: address.description,
                                 detail: "the database declares \(attributes) attributes, more than the "
                                    + "\(GATTCache.maximumAttributes) handles a database has")
            }
            try store.update(address: address, type: addressType) { $0.cache = cache }
        } catch {
            try? store.update(address: address, type: addressType) { $0.cache = nil }
            lifecycleBroadcast.yield(.cacheNotStored(error))
        }
    }

    /// The engine's start-up phase, as the lifecycle reports it.
    private func reportStartupPhase() {
        // Every received batch ends here: once ready, touch nothing of the engine.
        guard lifecycle.phase != .ready, lifecycle.connectionState == .connected else { return }
        let phase: LifecyclePhase
        switch connection?.client.startupPhase {
        case .exchangingMTU: phase = .exchangingMTU
        case .validatingCache: phase = .validatingCache
        case .discovering: phase = .discovering
        case .restoringSubscriptions: phase = .resubscribing
        case .ready:
            // Reached without a `.ready` event when there was nothing to discover.
            drive { $0.gattReady(at: now, into: &$1) }
            return
        case .failed, nil: return
        }
        drive { $0.gattPhase(phase, into: &$1) }
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

    private func complete(_ waiter: CheckedContinuation<GATTClientResponse, any Error>,
                          _ result: Result<GATTClientResponse, GATTClientError>) {
        switch result {
        case .success(let response): waiter.resume(returning: response)
        case .failure(let error): waiter.resume(throwing: reported(error))
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

    func failWaiters(_ error: AttuneError) {
        let pending = waiters
        waiters = [:]
        for waiter in pending.values { waiter.resume(throwing: error) }
    }

    // MARK: Time

    func schedule(_ time: MonotonicTime) {
        timer.schedule(time, at: clock.instant(time)) { [self] in await fire() }
    }

    private func fire() {
        timer.fired()
        let now = self.now
        drive { $0.tick(at: now, into: &$1) }
        if connection != nil {
            var actions: [GATTClientAction] = []
            connection!.tick(at: now, into: &actions)
            apply(actions)
        }
        if let next = connection?.deadline { schedule(next) }
        if let next = lifecycle.nextDeadline { schedule(next) }
    }
}
