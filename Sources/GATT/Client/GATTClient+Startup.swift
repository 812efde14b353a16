import ATT

extension GATTClient {
    /// What moves start-up on: the answers to the procedures it queued.
    enum StartupInput: Sendable {
        /// The start-up Exchange MTU finished, either way: a refused exchange leaves
        /// the default MTU, and start-up goes on with it.
        case mtuExchanged
        /// Start-up discovery produced the database, already installed in ``database``.
        case discovered(DiscoveredDatabase)
        /// Start-up discovery failed (or timed out) on a live bearer.
        case discoveryFailed(GATTClientError)
        /// One start-up CCCD write was answered, either way.
        case restoreAnswered
    }

    /// True once start-up is over: discovery finished (or the cache was confirmed) and
    /// every restoring CCCD write was answered, or, with nothing to discover, the MTU is
    /// known.
    public var isReady: Bool {
        if case .ready = startup { true } else { false }
    }

    /// Where start-up is, once ``start(bearer:restoring:at:into:)`` was called.
    public var startupPhase: GATTStartupPhase? { startup.phase }

    /// Whether start-up confirmed the cached database through its hash (true), found it
    /// changed (false), or had no cache to check (nil).
    public var cacheHit: Bool? { startup.cacheHit }

    /// Begins the configured start-up: Exchange MTU, then discovery, or a Database Hash
    /// check when the database given at `init` carries one, then the CCCD writes that
    /// restore `restoring` (the subscriptions of an earlier link, found again by UUID).
    /// ``GATTClientEvent/ready(_:)`` follows when discovery is configured or something
    /// is to be restored; ``startupPhase`` says where it is. Start-up runs once: a
    /// second call does nothing.
    public mutating func start(bearer: inout ATTBearer, restoring: [Subscription] = [], at now: MonotonicTime,
                               into actions: inout [GATTClientAction]) {
        guard case .idle = startup else { return }
        // Discovery reports what changed against the database given at `init`; only a
        // hashed one can be confirmed, and only that one makes the step a cache check.
        let cached = database.services.isEmpty ? nil : database
        var discovery: GATTClientStartup.StartupDiscovery?
        if configuration.discoversOnStart || !restoring.isEmpty {
            discovery = GATTClientStartup.StartupDiscovery(cached: cached?.databaseHash == nil ? nil : cached,
                                                           restoring: restoring)
        }
        // An exchange the application already asked for counts as the start-up one
        // (Exchange MTU happens at most once per connection, Vol 3 Part F §3.4.2.1).
        if configuration.exchangesMTUOnStart && !mtuExchangeQueued {
            mtuExchangeQueued = true
            startup = .exchangingMTU(then: discovery)
            enqueue(ExchangeMTUProcedure(rxMTU: bearer.rxMTU), purpose: .startupMTU)
        } else if let discovery {
            startup = .discovering(discovery)
        } else {
            // Nothing to wait for: ready at once, without a `.ready` event.
            startup = .ready(cacheHit: nil)
        }
        if discovery != nil { enqueue(self.discovery(cached: cached), purpose: .startupDiscovery) }
        pump(bearer: &bearer, at: now, into: &actions)
    }

    /// Every start-up transition, one match over the step and what arrived. A pair not
    /// listed cannot happen (each input answers a procedure only its step queues), and
    /// leaves start-up where it is.
    mutating func advanceStartup(_ input: StartupInput, into actions: inout [GATTClientAction]) {
        switch (startup, input) {
        case (.exchangingMTU(then: nil), .mtuExchanged):
            // Nothing to discover: no `.ready` event, only the phase.
            startup = .ready(cacheHit: nil)
        case let (.exchangingMTU(then: discovery?), .mtuExchanged):
            startup = .discovering(discovery)
        case let (.discovering(discovery), .discovered(found)):
            let cacheHit = discovery.cached.map { $0 == found }
            let pending = restoreSubscriptions(discovery.restoring, in: found, into: &actions)
            if pending > 0 {
                startup = .restoring(pending: pending, cacheHit: cacheHit)
            } else {
                becomeReady(cacheHit: cacheHit, into: &actions)
            }
        case let (.discovering(discovery), .discoveryFailed(error)):
            startup = .failed
            abandonRestoration(discovery.restoring, error, into: &actions)
            actions.append(.deliver(.startupFailed(error)))
        case let (.restoring(pending, cacheHit), .restoreAnswered):
            if pending > 1 {
                startup = .restoring(pending: pending - 1, cacheHit: cacheHit)
            } else {
                becomeReady(cacheHit: cacheHit, into: &actions)
            }
        case (.idle, _), (.exchangingMTU, _), (.discovering, _), (.restoring, _), (.ready, _), (.failed, _):
            break
        }
    }

    /// Start-up is over: the owner may report the link ready.
    private mutating func becomeReady(cacheHit: Bool?, into actions: inout [GATTClientAction]) {
        startup = .ready(cacheHit: cacheHit)
        actions.append(.deliver(.ready(database)))
    }
}
