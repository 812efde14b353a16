/// Where one pairing procedure stands (Vol 3 Part H §2.3). Each case carries exactly what
/// its step holds and nothing else: a nonce exists once it is drawn, a passkey once it is
/// known, a key once it is derived. A step cannot hold another step's data, and no flag
/// can disagree with the step, because there is no flag: the case is the step.
enum Pairing: Sendable {
    /// Initiator, phase 1: our Pairing Request is out (its features, and its octets for c1).
    case requested(PairingFeatures, pdu: [UInt8])
    /// Phase 2, LE legacy: TK, Mconfirm/Sconfirm, Mrand/Srand, then the STK.
    case legacy(NegotiatedPairing, PairingCommands, LegacyStep)
    /// Phase 2, LE Secure Connections: public keys, authentication stage 1, then stage 2.
    case secureConnections(NegotiatedPairing, SecureConnectionsStep)
    /// Phase 2 done: the link layer is asked to encrypt with this key.
    case encrypting(NegotiatedPairing, LinkKey)
    /// Phase 3, over the encrypted link: the keys still expected, and those handed over.
    case distributingKeys(NegotiatedPairing, LinkKey, KeyExchange)

    /// What the feature exchange settled; nil while the initiator waits for the Response.
    var negotiated: NegotiatedPairing? {
        switch self {
        case .requested: nil
        case .legacy(let n, _, _), .secureConnections(let n, _), .encrypting(let n, _), .distributingKeys(let n, _, _): n
        }
    }

    /// LE Secure Connections rather than legacy; nil before the Response.
    var isSecureConnections: Bool? {
        switch self {
        case .requested: nil
        case .legacy: false
        case .secureConnections: true
        case .encrypting(_, let key), .distributingKeys(_, let key, _): key.isSecureConnections
        }
    }

    /// The association model, once negotiated.
    var model: AssociationModel? { negotiated?.model }

    /// The Secure Connections DHKey, while a step holds it (for tests that prove it is never printed).
    var dhKey: [UInt8]? {
        guard case .secureConnections(_, let step) = self else { return nil }
        return step.dhKey
    }

    /// The step's name, without its data (which holds keys): for descriptions and logs.
    var stepName: String {
        switch self {
        case .requested: "pairing request sent"
        case .legacy(_, _, let step): "legacy, \(step.name)"
        case .secureConnections(_, let step): "Secure Connections, \(step.name)"
        case .encrypting(_, let key): "\(key.isSecureConnections ? "Secure Connections" : "legacy"), encrypting"
        case .distributingKeys(_, let key, _):
            "\(key.isSecureConnections ? "Secure Connections" : "legacy"), distributing keys"
        }
    }
}
