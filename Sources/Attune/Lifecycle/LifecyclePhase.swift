/// Where a connection is in its life: the four ``ConnectionState``s, with the GATT phases
/// that follow the link coming up spelled out.
///
/// A connection goes `connecting → connected → exchangingMTU`, then either
/// `validatingCache` (a cached database whose hash still matches skips discovery; one
/// that no longer matches is rediscovered within the same phase) or `discovering` (no
/// usable cache), then `resubscribing` when subscriptions must be restored, and finally
/// `ready`.
public enum LifecyclePhase: String, Hashable, Sendable, CustomStringConvertible {
    case disconnected
    case connecting
    /// The link is up; the GATT phases have not started.
    case connected
    case exchangingMTU
    /// Reading the peer's Database Hash to check the cached GATT database, and
    /// rediscovering it when the hash changed (``LifecycleEvent/cacheValidated(hit:)``
    /// says which).
    case validatingCache
    case discovering
    /// Writing the CCCDs of everything that was subscribed before.
    case resubscribing
    /// Everything restored: operations may start.
    case ready
    case disconnecting

    /// The coarse state this phase belongs to.
    public var connectionState: ConnectionState {
        switch self {
        case .disconnected: .disconnected
        case .connecting: .connecting
        case .connected, .exchangingMTU, .validatingCache, .discovering, .resubscribing, .ready: .connected
        case .disconnecting: .disconnecting
        }
    }

    public var description: String { rawValue }
}
