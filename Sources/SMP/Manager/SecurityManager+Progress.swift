/// What a pairing in progress has settled so far, once both sides' features are known.
public struct PairingProgress: Hashable, Sendable {
    /// The association model the IO capability table (or OOB, or MITM) chose.
    public var associationModel: AssociationModel
    /// LE Secure Connections rather than LE legacy.
    public var secureConnections: Bool
    /// The negotiated encryption key size, 7–16 octets.
    public var keySize: Int

    /// True when the key will resist a man in the middle (every model but Just Works).
    public var isAuthenticated: Bool { associationModel.isAuthenticated }
}

extension SecurityManager {
    /// The pairing in progress, once the Pairing Response settled its model; nil before
    /// and outside pairing. A host reads it when the link encrypts, to know how strong the
    /// new key is before key distribution finishes (a peer may send ATT requests then).
    public var progress: PairingProgress? {
        guard let p = pairing, let n = p.negotiated, let secureConnections = p.isSecureConnections else { return nil }
        return PairingProgress(associationModel: n.model, secureConnections: secureConnections, keySize: n.keySize)
    }
}
