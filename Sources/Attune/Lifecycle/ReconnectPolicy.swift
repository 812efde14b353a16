/// What a ``Peripheral`` does when an established connection drops.
public enum ReconnectPolicy: Hashable, Sendable {
    /// Stay disconnected; subscriptions end with the disconnect's reason.
    case off
    /// Reconnect with the given backoff, re-subscribe and revalidate the GATT cache,
    /// until ``Peripheral/cancelConnection()``.
    case automatic(Backoff)

    /// Automatic, 1 s growing to 60 s.
    public static let automatic = ReconnectPolicy.automatic(.standard)
}
