/// The delivery guarantees the gateway uses (MQTT 5 §4.3). QoS 2 is left out on purpose:
/// gateway values are idempotent, and QoS 1 with de-duplication by timestamp is cheaper.
public enum MQTTQoS: Int32, Sendable, Hashable {
    /// At most once: written to the socket and forgotten.
    case atMostOnce = 0
    /// At least once: held until the broker's PUBACK, re-sent after a reconnect.
    case atLeastOnce = 1
}
