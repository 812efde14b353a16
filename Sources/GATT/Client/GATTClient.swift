import ATT

/// The GATT client engine (Vol 3 Part G §4), sans-I/O.
///
/// Commands go in through ``perform(_:bearer:at:into:)``, each getting a
/// ``GATTRequestID``; bearer events go in through ``handle(_:bytes:bearer:at:into:)``;
/// actions come out (bytes to send, completions, events). The engine sits on an
/// ``ATTBearer`` that it borrows for each call, so one bearer can carry a server engine
/// too; ``GATTLink`` bundles a bearer with a client for client-only links.
///
/// Procedures run one at a time in the order given, since a bearer allows one outstanding
/// request (Vol 3 Part F §3.3.2). After a transaction timeout the bearer is dead: the
/// current and every queued procedure fail with ``GATTClientError/transactionTimeout``
/// and nothing more is sent.
public struct GATTClient: Sendable {
    /// The configuration given at `init`; the sign counter advances with each signed write.
    public internal(set) var configuration: GATTClientConfiguration
    /// What the client knows of the server's database.
    public internal(set) var database: DiscoveredDatabase
    /// Whether the link is encrypted; Signed Write sends a plain Write Command then.
    public var linkEncrypted = false
    /// True once the bearer closed; every command fails at once afterwards.
    public var isClosed: Bool { closeError != nil }
    /// Why the bearer closed, once it has: the error every pending and later command
    /// fails with (a transaction timeout, the protocol violation that closed it, or
    /// ``GATTClientError/bearerClosed`` when the link went away).
    public internal(set) var closeError: GATTClientError?

    struct Pending: Sendable {
        var id: GATTRequestID
        var procedure: any ClientProcedure
        var purpose: Purpose
    }

    /// Why a procedure runs, which decides what its completion does.
    enum Purpose: Sendable {
        case command
        case startupMTU
        case startupDiscovery
        case rediscovery(AttributeHandleRange)
        case subscription(Subscription, kind: SubscriptionKind, delta: Int)
        /// A CCCD written again at start-up; start-up waits for its answer.
        case restore(Subscription)
        /// A CCCD written again after a Service Changed rediscovery moved its characteristic.
        case relocation(Subscription)
        case signedWrite
        /// An Execute Write cancel left behind by a cancelled long write; its answer is dropped.
        case cleanup
    }

    struct Active: Sendable {
        var pending: Pending
        /// The request last sent, sent again after security is raised.
        var request: ATTClientPDU
        var retriedAfterSecurity = false
        var cancelled = false
        /// When a whole-database discovery must be over (``GATTClientConfiguration/discoveryTimeout``).
        var discoveryDeadline: MonotonicTime?
        /// Responses the procedure has taken so far.
        var responses = 0
    }

    var queue: [Pending] = []
    var queueHead = 0
    var active: Active?
    var nextID: UInt64 = 1
    var subscriptionTable = SubscriptionTable()
    /// Whether this connection's one Exchange MTU (Vol 3 Part F §3.4.2.1) was queued,
    /// by start-up or by a command. It outlives start-up, since a later command must not
    /// send a second one; start-up only reads it to skip its own exchange.
    var mtuExchangeQueued = false
    /// Where start-up is, with what that step holds.
    var startup = GATTClientStartup.idle

    /// A client; `database` seeds its cache (see ``start(bearer:at:into:)`` for how a
    /// cached Database Hash is used).
    public init(configuration: GATTClientConfiguration = GATTClientConfiguration(), database: DiscoveredDatabase = DiscoveredDatabase()) {
        self.configuration = configuration
        self.database = database
    }

    /// When the running whole-database discovery times out, if one runs: call
    /// ``tick(bearer:at:into:)`` then. The bearer's own ``ATTBearer/deadline`` is separate;
    /// ``GATTLink/deadline`` is the earlier of the two.
    public var discoveryDeadline: MonotonicTime? {
        guard let active, !active.cancelled else { return nil }
        return active.discoveryDeadline
    }

    /// Number of procedures waiting behind the current one.
    public var queuedCount: Int { queue.count - queueHead }

    /// Subscribers counted for a characteristic.
    public func subscriberCount(valueHandle: AttributeHandle) -> Int { subscriptionTable.count(valueHandle) }

    /// Every subscription of this link, in handle order, with those handed to `start`
    /// that start-up has not placed yet: what the owner keeps for the next link.
    public var subscriptions: [Subscription] { startup.restoring + subscriptionTable.records }

    /// Whether the characteristic at `valueHandle` is subscribed to.
    public func isSubscribed(valueHandle: AttributeHandle) -> Bool {
        subscriptionTable.count(valueHandle) > 0 || startup.restoring.contains { $0.valueHandle == valueHandle }
    }

    func discovery(cached: DiscoveredDatabase?) -> DatabaseDiscoveryProcedure {
        var p = DatabaseDiscoveryProcedure(cached: cached)
        p.clientSupportedFeatures = configuration.clientSupportedFeatures
        p.subscribesToServiceChanged = configuration.subscribesToServiceChanged
        return p
    }
}
