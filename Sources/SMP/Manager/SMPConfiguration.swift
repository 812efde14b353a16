/// What this side of a link offers and requires when it pairs.
public struct SMPConfiguration: Sendable {
    /// This device's IO capabilities; they choose the association model with the peer's.
    public var ioCapability: IOCapability
    /// Ask for a bond (Bonding_Flags = 01). Without one, no keys are distributed.
    public var bonding: Bool
    /// Require MITM protection: Just Works is refused with Authentication Requirements.
    public var requiresMITM: Bool
    /// Offer LE Secure Connections.
    public var secureConnections: Bool
    /// Refuse LE legacy pairing with Authentication Requirements.
    public var secureConnectionsOnly: Bool
    /// The smallest encryption key size accepted, 7–16 octets (values outside are clamped).
    public var minimumKeySize: Int { didSet { minimumKeySize = min(16, max(7, minimumKeySize)) } }
    /// The largest key size offered, 7–16 octets (values outside are clamped).
    public var maximumKeySize: Int { didSet { maximumKeySize = min(16, max(7, maximumKeySize)) } }
    /// Keys this side distributes, if the peer asks for them. IdKey is offered only with ``identity``.
    public var localKeys: KeyDistribution
    /// Keys this side asks the peer for.
    public var peerKeys: KeyDistribution
    /// Our IRK and identity address, distributed as IdKey.
    public var identity: LocalIdentity?
    /// The CSRK distributed as SignKey; a random one is made when nil.
    public var signatureKey: SMPKey?
    /// When this side displays a passkey, show this one instead of a random one.
    public var fixedPasskey: UInt32?
    /// The initiator pairs by itself when a Security Request arrives (else it only reports it).
    public var pairsOnSecurityRequest: Bool
    /// The responder accepts Pairing Requests (else Pairing Not Supported).
    public var acceptsPairing: Bool
    /// The SMP timeout (Vol 3 Part H §3.4): 30 s.
    public var timeout: Duration
    /// Ask the user to accept a Secure Connections Just Works pairing
    /// (``SecurityManagerEvent/confirmJustWorks``) before the DHKey checks, as stacks with a
    /// "Pair?" dialog do; refused, it fails with Numeric Comparison Failed. LE legacy Just
    /// Works is not asked.
    public var confirmsJustWorks = false

    /// Our identity for key distribution.
    public struct LocalIdentity: Sendable, Hashable {
        public var identityResolvingKey: SMPKey
        public var address: SMPAddress
        public init(identityResolvingKey: SMPKey, address: SMPAddress) {
            self.identityResolvingKey = identityResolvingKey
            self.address = address
        }
    }

    public init(ioCapability: IOCapability = .noInputNoOutput, bonding: Bool = true, requiresMITM: Bool = false,
                secureConnections: Bool = true, secureConnectionsOnly: Bool = false, minimumKeySize: Int = 16,
                maximumKeySize: Int = 16, localKeys: KeyDistribution = [.encKey, .idKey, .signKey],
                peerKeys: KeyDistribution = [.encKey, .idKey, .signKey], identity: LocalIdentity? = nil,
                signatureKey: SMPKey? = nil, fixedPasskey: UInt32? = nil, pairsOnSecurityRequest: Bool = true,
                acceptsPairing: Bool = true, timeout: Duration = .seconds(30)) {
        self.ioCapability = ioCapability
        self.bonding = bonding
        self.requiresMITM = requiresMITM
        self.secureConnections = secureConnections
        self.secureConnectionsOnly = secureConnectionsOnly
        self.minimumKeySize = min(16, max(7, minimumKeySize))
        self.maximumKeySize = min(16, max(7, maximumKeySize))
        self.localKeys = localKeys
        self.peerKeys = peerKeys
        self.identity = identity
        self.signatureKey = signatureKey
        self.fixedPasskey = fixedPasskey
        self.pairsOnSecurityRequest = pairsOnSecurityRequest
        self.acceptsPairing = acceptsPairing
        self.timeout = timeout
    }

    /// Our AuthReq octet.
    var authenticationRequirements: AuthenticationRequirements {
        var a: AuthenticationRequirements = [.ct2]
        if bonding { a.insert(.bonding) }
        if requiresMITM { a.insert(.mitm) }
        if secureConnections || secureConnectionsOnly { a.insert(.secureConnections) }
        return a
    }

    /// The keys we can actually distribute.
    var offeredKeys: KeyDistribution {
        guard bonding else { return [] }
        var k = localKeys
        if identity == nil { k.remove(.idKey) }
        return k
    }

    var requestedKeys: KeyDistribution { bonding ? peerKeys : [] }
}
