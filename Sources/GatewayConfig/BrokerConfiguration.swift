/// The `mqtt:` section: the broker, who the gateway is on it, and where its topics go.
public struct BrokerConfiguration: Hashable, Sendable {
    public var broker: MQTTBrokerURL
    /// PEM files for `mqtts://`: a CA to trust (nil: the system's), and a client certificate
    /// with its key (both or neither).
    public var caFile: String?
    public var certFile: String?
    public var keyFile: String?
    public var username: String?
    /// The password, given inline or, after `resolveSecrets(readFile:)`, read from `passwordFile`.
    public var password: Secret?
    public var passwordFile: String?
    /// The MQTT client identifier, also the gateway's name in its topics.
    public var clientID: String
    /// The prefix of every topic the gateway publishes (default `attune`).
    public var base: String
    /// Home Assistant discovery, or nil when off (the key is absent).
    public var discovery: DiscoveryConfiguration?
    /// The MQTT keepalive (default 30 s; 1 s to 65535 s, as the CONNECT packet carries it).
    public var keepalive: Duration

    public init(broker: MQTTBrokerURL, caFile: String? = nil, certFile: String? = nil, keyFile: String? = nil,
                username: String? = nil, password: Secret? = nil, passwordFile: String? = nil,
                clientID: String, base: String = "attune", discovery: DiscoveryConfiguration? = nil,
                keepalive: Duration = .seconds(30)) {
        self.broker = broker
        self.caFile = caFile
        self.certFile = certFile
        self.keyFile = keyFile
        self.username = username
        self.password = password
        self.passwordFile = passwordFile
        self.clientID = clientID
        self.base = base
        self.discovery = discovery
        self.keepalive = keepalive
    }

    static let keys = ["url", "ca", "cert", "key", "username", "password", "password_file", "client_id", "base",
                       "discovery", "keepalive"]

    init(_ node: YAMLNode, at path: ConfigPath) throws(GatewayConfigError) {
        let m = try MappingReader(node, at: path, keys: Self.keys)
        let urlNode = try m.required("url")
        switch MQTTBrokerURL.parse(try Read.text(urlNode, path.appending("url"), maxLength: 300)) {
        case .success(let url): broker = url
        case .failure(let problem): throw m.error("url", problem.message)
        }
        caFile = try m.optional("ca") { n, p throws(GatewayConfigError) in try Read.text(n, p) }
        certFile = try m.optional("cert") { n, p throws(GatewayConfigError) in try Read.text(n, p) }
        keyFile = try m.optional("key") { n, p throws(GatewayConfigError) in try Read.text(n, p) }
        for key in ["ca", "cert", "key"] where m.has(key) && !broker.usesTLS {
            throw m.error(key, "needs an mqtts:// url")
        }
        if (certFile == nil) != (keyFile == nil) {
            throw certFile == nil ? m.error("key", "needs cert as well") : m.error("cert", "needs key as well")
        }
        username = try m.optional("username") { n, p throws(GatewayConfigError) in try Read.text(n, p, maxLength: 1024) }
        password = try m.optional("password") { n, p throws(GatewayConfigError) in
            // Read.text never echoes the value in its errors.
            Secret(try Read.text(n, p, maxLength: 4096))
        }
        passwordFile = try m.optional("password_file") { n, p throws(GatewayConfigError) in try Read.text(n, p) }
        if m.has("password"), m.has("password_file") {
            throw m.error("password_file", "give password or password_file, not both")
        }
        if username == nil, m.has("password") || m.has("password_file") {
            throw m.error(m.has("password") ? "password" : "password_file", "needs a username")
        }
        clientID = try m.require("client_id") { n, p throws(GatewayConfigError) in try Read.topicLevel(n, p) }
        base = try m.optional("base") { n, p throws(GatewayConfigError) in try Read.topicPrefix(n, p) } ?? "attune"
        discovery = try m.optional("discovery") { n, p throws(GatewayConfigError) in try DiscoveryConfiguration(n, at: p) }
        keepalive = try m.optional("keepalive") { n, p throws(GatewayConfigError) in try Read.duration(n, p) } ?? .seconds(30)
        guard keepalive >= .seconds(1), keepalive <= .seconds(65535) else {
            throw m.error("keepalive", "must be 1 s to 65535 s (the CONNECT packet's range)")
        }
    }
}

/// Home Assistant MQTT discovery (`discovery: {prefix: homeassistant}`).
public struct DiscoveryConfiguration: Hashable, Sendable {
    /// The discovery topic prefix (default `homeassistant`, Home Assistant's own default).
    public var prefix: String

    public init(prefix: String = "homeassistant") {
        self.prefix = prefix
    }

    init(_ node: YAMLNode, at path: ConfigPath) throws(GatewayConfigError) {
        let m = try MappingReader(node, at: path, keys: ["prefix"])
        prefix = try m.optional("prefix") { n, p throws(GatewayConfigError) in try Read.topicPrefix(n, p) } ?? "homeassistant"
    }
}
