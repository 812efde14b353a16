import ATT

/// Something the server did on its own, or a change of the client's state.
public enum GATTClientEvent: Hashable, Sendable {
    /// A Handle Value Notification, or one value of a Multiple Handle Value Notification.
    /// The value shares storage with the received bytes.
    case notification(AttributeHandle, ArraySlice<UInt8>)
    /// A Handle Value Indication; the client has already queued its confirmation.
    case indication(AttributeHandle, ArraySlice<UInt8>)
    /// Start-up discovery (or a cache hit) finished: the client is ready.
    case ready(DiscoveredDatabase)
    /// The server's database changed (Service Changed indication, or a different Database
    /// Hash): the services that were in the affected range, and those now found there.
    case servicesChanged(invalidated: [DiscoveredService], discovered: [DiscoveredService])
    /// Start-up discovery failed; the client is not ready, and the bearer stays usable
    /// for individual commands.
    case startupFailed(GATTClientError)
    /// A subscription handed to ``GATTClient/start(bearer:restoring:at:into:)`` (or one a
    /// Service Changed rediscovery moved) was written again.
    case subscriptionRestored(Subscription)
    /// A subscription ended: its characteristic is gone, or the server refused its CCCD
    /// write when it was restored.
    case subscriptionEnded(Subscription, GATTClientError)
    /// A subscription's characteristic was found at new handles (the database changed);
    /// `from` is its old value handle.
    case subscriptionMoved(Subscription, from: AttributeHandle)
    /// The set of subscriptions changed: what an owner that keeps them between links
    /// (a store) must save.
    case subscriptionsChanged([Subscription])
    /// The server sent a PDU that no procedure wanted (a stray response, a malformed
    /// notification); it was dropped.
    case dropped(GATTClientError)
}
