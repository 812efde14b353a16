/// Settings of a ``ConnectionLifecycle``.
public struct LifecycleConfiguration: Hashable, Sendable {
    /// How long a connect attempt may take before it fails with
    /// ``AttuneError/connectionTimeout``; 30 s like Core Bluetooth's practical limit.
    public var connectTimeout: Duration
    /// How long to wait for the link to report it is down after we asked it to close,
    /// before declaring it closed anyway.
    public var disconnectTimeout: Duration
    /// What happens after an established connection drops.
    public var reconnect: ReconnectPolicy
    /// The ATT_MTU to ask for in the MTU exchange.
    public var preferredMTU: Int
    /// Discover the whole database when no valid cache exists, so ``LifecyclePhase/ready``
    /// always comes with a GATT tree. Off: discovery waits for the application.
    public var discoversOnConnect: Bool
    /// With automatic reconnect, keep trying when the very first attempt fails too (a
    /// gateway resuming its devices after a restart, when some are out of range). Off:
    /// only connections that were once established are re-established.
    public var retriesFirstConnection: Bool
    /// How long discovering the whole database may take, however the server answers;
    /// past it the discovery fails and the connection goes on without a cache. nil: no
    /// limit. 60 s by default.
    public var discoveryTimeout: Duration?

    /// Core Bluetooth-like defaults: 30 s connect timeout, no automatic reconnect.
    public init(connectTimeout: Duration = .seconds(30), disconnectTimeout: Duration = .seconds(5),
                reconnect: ReconnectPolicy = .off, preferredMTU: Int = 517, discoversOnConnect: Bool = true,
                retriesFirstConnection: Bool = false, discoveryTimeout: Duration? = .seconds(60)) {
        self.connectTimeout = connectTimeout
        self.disconnectTimeout = disconnectTimeout
        self.reconnect = reconnect
        self.preferredMTU = preferredMTU
        self.discoversOnConnect = discoversOnConnect
        self.retriesFirstConnection = retriesFirstConnection
        self.discoveryTimeout = discoveryTimeout
    }
}
