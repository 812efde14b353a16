/// What the Pairing Request and Response settled (§2.3.4–2.3.5.1), fixed for the rest of
/// the pairing.
struct NegotiatedPairing: Sendable {
    /// The Pairing Request's features.
    let initiator: PairingFeatures
    /// The Pairing Response's features; its key distribution fields are the negotiated ones.
    let responder: PairingFeatures
    let model: AssociationModel
    /// The encryption key size, 7–16 octets.
    let keySize: Int
}

/// The Pairing Request and Response as sent (7 octets each): LE legacy's c1 hashes them.
struct PairingCommands: Sendable {
    let request: [UInt8]
    let response: [UInt8]
}

/// The key phase 2 produced, which the link encrypts with. Its kind says which method paired.
enum LinkKey: Sendable {
    /// LE legacy: the STK, for this link only (LTKs follow in key distribution).
    case shortTerm(SMPKey)
    /// LE Secure Connections: the LTK from f5, for this link and the next ones.
    case longTerm(SMPKey)

    var key: SMPKey {
        switch self {
        case .shortTerm(let k), .longTerm(let k): k
        }
    }

    var isSecureConnections: Bool {
        if case .longTerm = self { true } else { false }
    }
}
