import ATT

/// One link's GATT, sans-I/O: its ATT bearer, the GATT client engine on it, and what
/// the GATT server keeps for it. ATT is symmetric, so both engines share the one bearer
/// (Vol 3 Part F §3.2.11 allows one outstanding request each way).
///
/// A central's `Peripheral` holds one directly, as the whole of its link's GATT state
/// (see `GATTLink+Client.swift`): the MTU, the discovered database and its cache check,
/// the long procedures and the subscriptions. A ``GATTServer`` holds one per connected
/// client, next to the database they share; it runs the server half of each and routes
/// the rest to the link's client engine.
public struct GATTLink: Sendable {
    /// The link's ATT bearer (MTU, sequencing, transaction timers).
    public var bearer: ATTBearer
    /// The client engine: our requests to the peer's server, its notifications to us.
    public var client: GATTClient

    // What the server keeps for this link.
    var security: LinkSecurity
    var peer: PeerIdentity?
    var clientConfigurations: [AttributeHandle: ClientCharacteristicConfiguration] = [:]
    var supportedFeatures: ClientSupportedFeatures = []
    var awareness = ChangeAwareness.aware
    var prepareQueue: PrepareWriteQueue
    var pending: PendingApplicationRequest?
    var indications: [QueuedIndication] = []
    /// Index of the first indication not yet confirmed.
    var indicationHead = 0
    /// Whether `indications[indicationHead]` has been sent and awaits its confirmation.
    var indicationInFlight = false
    var signingKey: [UInt8]?
    var signingKeyAuthenticated = false
    var lastSignCounter: UInt32?

    init(bearer: ATTBearer, client: GATTClient = GATTClient(), security: LinkSecurity, peer: PeerIdentity?,
         prepareLimit: Int) {
        self.bearer = bearer
        self.client = client
        self.security = security
        self.peer = peer
        self.prepareQueue = PrepareWriteQueue(limit: prepareLimit)
    }

    var bondedState: BondedClientState {
        var s = BondedClientState()
        s.clientConfigurations = clientConfigurations
        s.supportedFeatures = supportedFeatures
        s.changeAware = awareness == .aware
        s.signingKey = signingKey
        s.lastSignCounter = lastSignCounter
        return s
    }

    mutating func restore(_ s: BondedClientState) {
        clientConfigurations = s.clientConfigurations
        supportedFeatures = s.supportedFeatures
        awareness = s.changeAware ? .aware : .unaware
        if let key = s.signingKey { signingKey = key }
        lastSignCounter = s.lastSignCounter
    }

    var queuedIndicationCount: Int { indications.count - indicationHead }
}
