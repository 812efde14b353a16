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
    /// The server sent a PDU that no procedure wanted (a stray response, a malformed
    /// notification); it was dropped.
    case dropped(GATTClientError)
}
