/// What a ``ConnectionLifecycle`` tells the application; ``Peripheral/lifecycle``
/// delivers these.
public enum LifecycleEvent: Hashable, Sendable {
    /// The phase changed.
    case phase(LifecyclePhase)
    /// A connect attempt the application is waiting for failed. With automatic
    /// reconnect after an earlier success, attempts continue in the background.
    case connectFailed(AttuneError)
    /// The link went down or a reconnect attempt failed, and why. `reconnectAt` is when
    /// the next attempt starts, or nil when none will.
    case disconnected(DisconnectReason, reconnectAt: MonotonicTime?)
    /// The Database Hash was read: `hit` means the cache was used and discovery skipped.
    case cacheValidated(hit: Bool)
    /// The discovered database is not in the store: the store refused the record with it
    /// (too big for a record, or the store failed). The link keeps using it; the next
    /// process discovers again.
    case cacheNotStored(StoreError)
    /// A subscription was written again after a reconnect.
    case subscriptionRestored(Subscription)
    /// A subscription ended: the connection is gone for good, the characteristic no
    /// longer exists, or the peer refused the CCCD write.
    case subscriptionEnded(Subscription, AttuneError)
    /// Pairing completed and its keys were saved as this peripheral's bond (the bond
    /// itself is in the store; its description shows no key).
    case bonded(Bond)
    /// The stored bond did not encrypt the link (the peer lost it: PIN or Key Missing,
    /// say). Nothing was removed; the link goes on unencrypted, and the next attribute
    /// that needs encryption pairs again, replacing the bond.
    case bondFailed(AttuneError)
}
