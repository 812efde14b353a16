/// A message to publish. The payload is the caller's bytes as they are: a gateway value
/// carries its own wall-clock `ts`, so a message that waited in the outbound queue while
/// the broker was down is published with the time it was made, never re-timestamped.
public struct MQTTOutboundMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: MQTTQoS
    public var retain: Bool
    /// MQTT 5 Message Expiry Interval in seconds: the broker discards it for subscribers
    /// that have not received it by then (advertisements, leases).
    public var messageExpiry: UInt32?
    /// MQTT 5 Response Topic, for request/response (a `/set` result).
    public var responseTopic: String?
    /// MQTT 5 Correlation Data, echoed by a responder.
    public var correlationData: [UInt8]?

    public init(topic: String, payload: [UInt8], qos: MQTTQoS = .atMostOnce, retain: Bool = false,
                messageExpiry: UInt32? = nil, responseTopic: String? = nil, correlationData: [UInt8]? = nil) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.messageExpiry = messageExpiry
        self.responseTopic = responseTopic
        self.correlationData = correlationData
    }

    /// A message whose payload is UTF-8 text.
    public init(topic: String, text: String, qos: MQTTQoS = .atMostOnce, retain: Bool = false,
                messageExpiry: UInt32? = nil) {
        self.init(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain, messageExpiry: messageExpiry)
    }

    /// Whether it carries MQTT 5 properties (building them costs allocations; most messages have none).
    var hasProperties: Bool { messageExpiry != nil || responseTopic != nil || correlationData != nil }
}
