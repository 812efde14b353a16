/// A message the broker delivered to a subscription, with its MQTT 5 properties.
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: MQTTQoS
    /// Set when the broker sent a retained message on subscribing (not for live messages).
    public var retain: Bool
    /// MQTT 5 Response Topic: where the publisher wants the answer.
    public var responseTopic: String?
    /// MQTT 5 Correlation Data, to copy into the answer.
    public var correlationData: [UInt8]?
    /// MQTT 5 Message Expiry Interval as the broker forwarded it (the time left, in seconds).
    public var messageExpiry: UInt32?

    public init(topic: String, payload: [UInt8], qos: MQTTQoS, retain: Bool,
                responseTopic: String? = nil, correlationData: [UInt8]? = nil, messageExpiry: UInt32? = nil) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.responseTopic = responseTopic
        self.correlationData = correlationData
        self.messageExpiry = messageExpiry
    }

    /// The payload as UTF-8 text, or nil when it is not valid UTF-8.
    public var text: String? { String(validating: payload, as: UTF8.self) }
}
