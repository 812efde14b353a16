/// Keys one side handed to the other during key distribution (Vol 3 Part H §3.6).
public struct DistributedKeys: Hashable, Sendable {
    /// LE legacy LTK with the EDIV and Rand that name it.
    public var longTermKey: SMPKey?
    public var ediv: UInt16 = 0
    public var rand: UInt64 = 0
    public var identityResolvingKey: SMPKey?
    public var identityAddress: SMPAddress?
    public var signatureKey: SMPKey?

    public init() {}
}

/// A pairing that completed.
public struct PairingResult: Hashable, Sendable {
    /// Unauthenticated (Just Works) or authenticated (every other model).
    public enum SecurityLevel: Hashable, Sendable { case unauthenticated, authenticated }

    public var securityLevel: SecurityLevel
    public var secureConnections: Bool
    public var associationModel: AssociationModel
    /// The negotiated encryption key size, 7–16 octets.
    public var keySize: Int
    /// Both sides asked for bonding: the keys are meant to be stored.
    public var bonded: Bool
    /// LE Secure Connections: the LTK from f5, which encrypts this link and the next ones
    /// (EDIV and Rand zero). Nil for LE legacy, where the link ran on the STK and the
    /// distributed LTKs are in ``localKeys`` and ``peerKeys``.
    public var longTermKey: SMPKey?
    /// What we distributed.
    public var localKeys: DistributedKeys
    /// What the peer distributed.
    public var peerKeys: DistributedKeys
    /// The BR/EDR link key derived from the LTK with h6/h7, when LinkKey was negotiated.
    public var linkKey: SMPKey?
}

/// Why a pairing ended without a result.
public enum PairingFailure: Hashable, Sendable {
    /// We refused, and sent Pairing Failed with this reason.
    case local(PairingFailedReason)
    /// The peer sent Pairing Failed with this reason.
    case remote(PairingFailedReason)
    /// 30 s passed without the procedure completing; SMP stays closed on this link.
    case timeout
    /// The link layer could not encrypt with the new key (the HCI status).
    case encryptionFailed(UInt8)
}
