/// What the owner of a ``ConnectionLifecycle`` must do next. The machine does no I/O: it
/// asks for it through these.
public enum LifecycleAction: Hashable, Sendable {
    /// Start establishing the link (HCI LE Create Connection, or connect the socket).
    case openLink
    /// Tear the link down, or abandon the attempt in progress.
    case closeLink
    /// The link is up: start its GATT engine (MTU exchange, the cache checked through
    /// the Database Hash or the database discovered, subscriptions restored), and report
    /// its progress with ``ConnectionLifecycle/gattPhase(_:)`` and
    /// ``ConnectionLifecycle/gattReady(at:)``.
    case startGATT
    /// The connection is gone for good: every subscription ends with this error (and
    /// is forgotten by the store).
    case endSubscriptions(AttuneError)
    /// Fail every GATT operation in flight with this reason.
    case failPendingOperations(DisconnectReason)
    /// Tell the application.
    case deliver(LifecycleEvent)
    /// Call ``ConnectionLifecycle/tick(at:)`` no later than this.
    case schedule(MonotonicTime)
}
