/// A change in the client's link to the broker, in order, on ``MQTTClient/events``.
public enum MQTTConnectionEvent: Sendable, Equatable {
    /// The broker accepted the connection (CONNACK success); subscriptions are being re-sent.
    case connected(sessionPresent: Bool)
    /// The link went down after being up, or the broker refused it; a reconnect follows
    /// with backoff unless the client was closed.
    case disconnected(reason: String)
    /// The broker acknowledged a subscription (SUBACK) with this granted QoS, or refused
    /// it (`grantedQoS` nil).
    case subscribed(filter: String, grantedQoS: MQTTQoS?)
}
