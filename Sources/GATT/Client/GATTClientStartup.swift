/// Where a ``GATTClient``'s start-up is. Each case holds exactly what that step needs,
/// so the client cannot, say, call itself ready while its MTU exchange is still out:
/// readiness, the public ``GATTStartupPhase`` and the cache verdict are all read off
/// the one case. The transitions are in `GATTClient+Startup.swift`.
enum GATTClientStartup: Sendable, Equatable {
    /// ``GATTClient/start(bearer:restoring:at:into:)`` has not been called.
    case idle
    /// The start-up Exchange MTU is outstanding. `then` is the discovery queued behind
    /// it; nil when there is nothing to discover, and start-up is over (without a
    /// ``GATTClientEvent/ready(_:)`` event) once the MTU is known.
    case exchangingMTU(then: StartupDiscovery?)
    /// Start-up discovery (or the Database Hash check of the cache) is running.
    case discovering(StartupDiscovery)
    /// The CCCD writes that restore the last link's subscriptions are out; `pending`
    /// (at least 1) are not answered yet.
    case restoring(pending: Int, cacheHit: Bool?)
    /// Start-up is over. `cacheHit` is whether discovery confirmed the cached database
    /// through its hash (nil: there was no hashed cache to check, or no discovery).
    case ready(cacheHit: Bool?)
    /// Start-up discovery failed; the bearer stays usable for single commands.
    case failed

    /// What start-up discovery needs to carry from `start` to its answer.
    struct StartupDiscovery: Sendable, Equatable {
        /// The database given at `init`, when it carries a Database Hash to check.
        var cached: DiscoveredDatabase?
        /// The subscriptions of the last link, to find again by UUID once the
        /// database is known.
        var restoring: [Subscription]
    }

    /// The public projection of the case.
    var phase: GATTStartupPhase? {
        switch self {
        case .idle: nil
        case .exchangingMTU: .exchangingMTU
        case .discovering(let discovery): discovery.cached == nil ? .discovering : .validatingCache
        case .restoring: .restoringSubscriptions
        case .ready: .ready
        case .failed: .failed
        }
    }

    /// Whether start-up confirmed the cached database (true), found it changed (false),
    /// or had none to check (nil); known once discovery has answered.
    var cacheHit: Bool? {
        switch self {
        case .restoring(_, let hit), .ready(let hit): hit
        case .idle, .exchangingMTU, .discovering, .failed: nil
        }
    }

    /// The subscriptions handed to `start` that discovery has not placed yet.
    var restoring: [Subscription] {
        switch self {
        case .exchangingMTU(then: let discovery?), .discovering(let discovery): discovery.restoring
        case .idle, .exchangingMTU(then: nil), .restoring, .ready, .failed: []
        }
    }
}
