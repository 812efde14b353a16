import ATT

/// How a ``GATTClient`` behaves.
public struct GATTClientConfiguration: Hashable, Sendable {
    /// The Rx MTU offered in Exchange MTU (Vol 3 Part F §3.4.2.1); at least 23.
    public var rxMTU: UInt16
    /// Whether the link can raise its security level. When true, Insufficient
    /// Authentication (0x05) or Insufficient Encryption (0x0F) makes the client emit
    /// ``GATTClientAction/raiseSecurity`` and repeat the request once.
    public var canRaiseSecurity: Bool
    /// The ATT transaction timeout (Vol 3 Part F §3.3.3): 30 seconds.
    public var transactionTimeout: Duration
    /// How long a whole-database discovery (start-up, after Service Changed, or
    /// ``GATTClientCommand/discoverDatabase``) may take, from its first request; nil for
    /// no limit. A hostile server can keep a discovery going for 65,535 round trips per
    /// stage, each well inside the transaction timeout, so that timeout alone does not
    /// end it. Past the limit discovery fails with
    /// ``GATTClientError/discoveryTimedOut(pdus:)``.
    public var discoveryTimeout: Duration?
    /// Exchange MTU as soon as the client starts.
    public var exchangesMTUOnStart: Bool
    /// Discover the whole database on start, then report ``GATTClientEvent/ready(_:)``.
    public var discoversOnStart: Bool
    /// The Client Supported Features to write when the server has the characteristic
    /// (Vol 3 Part G §7.2): bit 0 robust caching, bit 2 multiple handle value
    /// notifications.
    public var clientSupportedFeatures: UInt8
    /// Subscribe to Service Changed indications after discovery.
    public var subscribesToServiceChanged: Bool
    /// The local Connection Signature Resolving Key and sign counter, for Signed Write
    /// Without Response.
    public var signingKey: SigningKey?

    /// Defaults: Rx MTU 517, no security raising, 30 s transaction timeout, 60 s
    /// discovery timeout, Exchange MTU on start, no discovery on start, robust caching
    /// and multiple notifications offered.
    public init(rxMTU: UInt16 = 517, canRaiseSecurity: Bool = false, transactionTimeout: Duration = .seconds(30),
                discoveryTimeout: Duration? = .seconds(60), exchangesMTUOnStart: Bool = true, discoversOnStart: Bool = false, clientSupportedFeatures: UInt8 = 0b101,
                subscribesToServiceChanged: Bool = true, signingKey: SigningKey? = nil) {
        self.rxMTU = max(23, rxMTU)
        self.canRaiseSecurity = canRaiseSecurity
        self.transactionTimeout = transactionTimeout
        self.discoveryTimeout = discoveryTimeout
        self.exchangesMTUOnStart = exchangesMTUOnStart
        self.discoversOnStart = discoversOnStart
        self.clientSupportedFeatures = clientSupportedFeatures
        self.subscribesToServiceChanged = subscribesToServiceChanged
        self.signingKey = signingKey
    }
}

/// A CSRK and the next sign counter (Vol 3 Part H §2.4.5).
public struct SigningKey: Hashable, Sendable {
    /// 16 bytes, least significant octet first (as stored by BlueZ and carried in SMP).
    public var csrk: [UInt8]
    public var signCounter: UInt32
    public init(csrk: [UInt8], signCounter: UInt32 = 0) {
        self.csrk = csrk
        self.signCounter = signCounter
    }
}
