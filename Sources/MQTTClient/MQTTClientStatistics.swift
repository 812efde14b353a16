/// Counters of ``MQTTClient``'s outbound side, as one consistent snapshot.
public struct MQTTClientStatistics: Sendable, Equatable {
    /// Messages waiting in the outbound queue, not yet handed to libmosquitto.
    public var queued: Int
    /// Messages handed to libmosquitto and not yet done: QoS 1 awaiting PUBACK, QoS 0 not yet written.
    public var inFlight: Int
    /// Messages dropped, oldest first, because the outbound queue was full.
    public var droppedMessages: Int
    /// QoS 1 messages the broker acknowledged with success (including "no matching subscribers").
    public var acknowledged: Int
    /// QoS 1 messages the broker acknowledged with an error reason (not authorised, quota...).
    public var rejected: Int
    /// QoS 0 messages written to the socket.
    public var written: Int
    /// Connections the broker accepted so far (1 after the first CONNACK).
    public var connections: Int
    /// Inbound messages dropped because the consumer of ``MQTTClient/messages`` fell behind.
    public var droppedInbound: Int
    /// Messages not delivered when the client closed: still queued, not yet written, or
    /// (QoS 1) written and never acknowledged. ``MQTTClient/close()`` drains first, so
    /// these are what its limit, a lost connection or an abrupt close left.
    public var undeliveredAtClose: Int = 0
}
