import ATT

/// A request waiting for the application (dynamic attribute values). The protocol is
/// sequential, so a connection has at most one.
struct PendingApplicationRequest: Sendable {
    enum Kind: Sendable {
        /// Re-run the request once the value arrives (reads of any kind).
        case read(AttributeHandle)
        /// Answer with a Write Response, then apply `stored` updates (Write Request).
        case write
        /// Answer with an Execute Write Response after applying `stored` updates.
        case execute(stored: [(index: Int, value: [UInt8])])
    }

    var id: ApplicationRequestID
    var deadline: MonotonicTime
    var kind: Kind
    /// The request PDU, copied so it can be processed again.
    var request: [UInt8]
    /// The handle an Unlikely Error names on timeout.
    var handle: AttributeHandle
    /// Dynamic values already supplied for this request.
    var resolved: [AttributeHandle: [UInt8]]
}

/// An indication waiting to be sent or confirmed.
struct QueuedIndication: Sendable {
    var id: IndicationID
    var handle: AttributeHandle
    var value: [UInt8]
    /// Set for Service Changed: confirming it makes the client change-aware.
    var isServiceChanged: Bool
}

/// Everything the server keeps for one connected client.
struct ServerConnectionState: Sendable {
    var bearer: ATTBearer
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

    init(bearer: ATTBearer, security: LinkSecurity, peer: PeerIdentity?, prepareLimit: Int) {
        self.bearer = bearer
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
