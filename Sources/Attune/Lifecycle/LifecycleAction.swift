/// What the owner of a ``ConnectionLifecycle`` must do next. The machine does no I/O: it
/// asks for it through these.
public enum LifecycleAction: Hashable, Sendable {
    /// Start establishing the link (HCI LE Create Connection, or connect the socket).
    case openLink
    /// Tear the link down, or abandon the attempt in progress.
    case closeLink
    /// Exchange the ATT_MTU; answer with ``ConnectionLifecycle/mtuExchanged(_:at:)``.
    case exchangeMTU(preferred: Int)
    /// Discover every service, characteristic and descriptor, unless the cached
    /// database's Database Hash still matches the server's; answer with
    /// ``ConnectionLifecycle/discoveryCompleted(_:databaseHash:cacheHit:at:)``.
    case discoverDatabase
    /// A fresh discovery: keep it (in the ``Store``).
    case saveCache(GATTCache)
    /// Write these CCCDs; answer each with
    /// ``ConnectionLifecycle/resubscribeCompleted(_:error:at:)``.
    case resubscribe([Subscription])
    /// The set of subscriptions changed: keep it (in the ``Store``).
    case saveSubscriptions([Subscription])
    /// Fail every GATT operation in flight with this reason.
    case failPendingOperations(DisconnectReason)
    /// Tell the application.
    case deliver(LifecycleEvent)
    /// Call ``ConnectionLifecycle/tick(at:)`` no later than this.
    case schedule(MonotonicTime)
}
