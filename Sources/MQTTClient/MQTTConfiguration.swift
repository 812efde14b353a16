/// How ``MQTTClient`` connects: broker, identity, session, will and queue bounds.
public struct MQTTConfiguration: Sendable, Equatable {
    /// Files for `mqtts://` (passed to `mosquitto_tls_set`); paths, read by libmosquitto on connect.
    public struct TLS: Sendable, Equatable {
        public var caFile: String?
        public var caPath: String?
        public var certFile: String?
        public var keyFile: String?
        public init(caFile: String? = nil, caPath: String? = nil, certFile: String? = nil, keyFile: String? = nil) {
            self.caFile = caFile
            self.caPath = caPath
            self.certFile = certFile
            self.keyFile = keyFile
        }
    }

    /// The message the broker publishes when the connection dies without DISCONNECT.
    public struct Will: Sendable, Equatable {
        public var topic: String
        public var payload: [UInt8]
        public var qos: MQTTQoS
        public var retain: Bool
        /// MQTT 5 Message Expiry Interval of the will, in seconds.
        public var messageExpiry: UInt32?
        public init(topic: String, payload: [UInt8], qos: MQTTQoS = .atLeastOnce, retain: Bool = true,
                    messageExpiry: UInt32? = nil) {
            self.topic = topic
            self.payload = payload
            self.qos = qos
            self.retain = retain
            self.messageExpiry = messageExpiry
        }
    }

    public var host: String
    public var port: Int
    /// Set for `mqtts://`; CA defaults to the system's when neither file nor path is given.
    public var tls: TLS?
    public var username: String?
    public var password: String?
    public var clientID: String
    /// Keepalive in seconds; libmosquitto accepts 0 (off) or 5 and more.
    public var keepalive: Int = 30
    /// MQTT 5 Clean Start: drop any session the broker holds for this client id.
    public var cleanStart: Bool = true
    public var will: Will?
    /// Outbound messages held while the broker is down (and until PUBACK for QoS 1).
    public var outboundCapacity: Int = 10_000
    /// Inbound messages that may wait for the consumer of ``MQTTClient/messages``.
    public var inboundCapacity: Int = 4_096
    /// MQTT 5 Receive Maximum (1...65535): QoS 1 deliveries the broker may have unacknowledged
    /// to this client at once. libmosquitto's 20 suits the gateway's few `/set` messages; a
    /// subscriber of many devices' values needs a wider window.
    public var receiveMaximum: Int = 20
    /// How long a connection attempt may take before it is abandoned and retried.
    public var connectTimeout: Duration = .seconds(10)
    /// How long ``MQTTClient/close()`` may spend delivering what is queued before it sends
    /// DISCONNECT anyway; what is left then is counted in
    /// ``MQTTClientStatistics/undeliveredAtClose``.
    public var closeDrainLimit: Duration = .seconds(5)

    public init(host: String, port: Int = 1883, clientID: String) {
        self.host = host
        self.port = port
        self.clientID = clientID
    }

    /// Parses `mqtt://host[:port]` (port 1883) or `mqtts://host[:port]` (port 8883, TLS with
    /// the given files); `[v6]` brackets an IPv6 address. Credentials belong in the
    /// configuration, not the URL, so `user@` is refused rather than half-honoured.
    public init(url: String, clientID: String, tls: TLS = TLS()) throws(MQTTError) {
        let secure: Bool
        let rest: Substring
        if url.hasPrefix("mqtt://") {
            secure = false
            rest = url.dropFirst("mqtt://".count)
        } else if url.hasPrefix("mqtts://") {
            secure = true
            rest = url.dropFirst("mqtts://".count)
        } else {
            throw .invalidURL(url, reason: "the scheme must be mqtt:// or mqtts://")
        }
        var authority = rest
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        guard !authority.contains("/"), !authority.contains("?"), !authority.contains("#") else {
            throw .invalidURL(url, reason: "a broker URL has no path, query or fragment")
        }
        guard !authority.contains("@") else {
            throw .invalidURL(url, reason: "put username and password in the configuration, not the URL")
        }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw .invalidURL(url, reason: "an IPv6 address needs its closing ]")
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalidURL(url, reason: "junk after the IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { throw .invalidURL(url, reason: "no host") }
        var port = secure ? 8883 : 1883
        if let portText {
            guard let value = Int(portText), (1...65_535).contains(value) else {
                throw .invalidURL(url, reason: "the port must be a number from 1 to 65535")
            }
            port = value
        }
        self.init(host: String(host), port: port, clientID: clientID)
        self.tls = secure ? tls : nil
    }
}
