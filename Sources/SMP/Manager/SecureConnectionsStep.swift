import BluetoothCrypto

/// LE Secure Connections phase 2 (§2.3.5.6), one case per step.
enum SecureConnectionsStep: Sendable {
    /// Initiator: our public key, of this key pair, is out; the responder's is awaited.
    case publicKeySent(P256.KeyPair)
    /// Responder: the initiator's public key is awaited (ours follows once it checks out).
    case awaitingPublicKey
    /// Initiator, Just Works or Numeric Comparison: Cb is awaited.
    case awaitingConfirm(PublicKeys)
    /// Our nonce is drawn (and sent, by the initiator); the peer's is awaited. `peerConfirm`
    /// is the commitment that nonce must open: Cb, to a Just Works or Numeric Comparison
    /// initiator. It is nil where the peer committed to nothing (the responder; Out of Band,
    /// whose commitment was checked with the public key).
    case awaitingRandom(PublicKeys, nonce: [UInt8], peerConfirm: [UInt8]?)
    /// Passkey Entry's 20 rounds.
    case passkey(PublicKeys, PasskeyStep)
    /// Stage 1 done; the user is asked (Numeric Comparison, or Just Works when confirmed).
    /// A responder keeps an Ea that came first, to check once the user agrees.
    case awaitingUser(CheckInputs, peerCheck: [UInt8]?)
    /// Initiator: Ea is out; Eb is awaited.
    case checkSent(DHKeyChecks)
    /// Responder: Ea is awaited.
    case awaitingCheck(DHKeyChecks)

    /// The DHKey, in the steps that still hold it.
    var dhKey: [UInt8]? {
        switch self {
        case .publicKeySent, .awaitingPublicKey, .checkSent, .awaitingCheck: nil
        case .awaitingConfirm(let k), .awaitingRandom(let k, _, _), .passkey(let k, _): k.dhKey
        case .awaitingUser(let inputs, _): inputs.dhKey
        }
    }

    var name: String {
        switch self {
        case .publicKeySent: "public key sent"
        case .awaitingPublicKey: "awaiting public key"
        case .awaitingConfirm: "awaiting confirm"
        case .awaitingRandom: "awaiting random"
        case .passkey(_, let step): "passkey \(step.name)"
        case .awaitingUser: "awaiting user"
        case .checkSent: "DHKey check sent"
        case .awaitingCheck: "awaiting DHKey check"
        }
    }
}

/// Passkey Entry (§2.3.5.6.3): 20 rounds, each committing to one bit of the passkey.
enum PasskeyStep: Sendable {
    /// The user types the passkey. A responder may already hold the first Cai.
    case awaitingPasskey(peerConfirm: [UInt8]?)
    /// Responder: Cai of this round is awaited.
    case awaitingConfirm(PasskeyRound)
    /// Initiator: Cai (made with `nonce`) is out; Cbi is awaited.
    case confirmSent(PasskeyRound, nonce: [UInt8])
    /// Both commitments of the round are known; the peer's nonce, which must open
    /// `peerConfirm`, is awaited (the responder sends its own after checking it).
    case awaitingRandom(PasskeyRound, nonce: [UInt8], peerConfirm: [UInt8])

    var name: String {
        switch self {
        case .awaitingPasskey: "awaiting passkey"
        case .awaitingConfirm(let r): "round \(r.index), awaiting confirm"
        case .confirmSent(let r, _): "round \(r.index), confirm sent"
        case .awaitingRandom(let r, _, _): "round \(r.index), awaiting random"
        }
    }
}

/// One round of Passkey Entry: the passkey and which of its 20 bits this round commits to.
struct PasskeyRound: Sendable {
    let passkey: UInt32
    /// 0–19.
    let index: Int

    /// The round's bit as f4's z: 0x80 | bit.
    var z: UInt8 { 0x80 | UInt8(truncatingIfNeeded: (passkey >> UInt32(index)) & 1) }
}

/// The public keys' x coordinates (PKax, PKbx, least significant first) and the DHKey they
/// agreed: what every later step computes with.
struct PublicKeys: Sendable {
    let pkax: [UInt8]
    let pkbx: [UInt8]
    let dhKey: [UInt8]
}

/// What stage 2 (f5, f6) is computed from: the DHKey, Na and Nb, and f6's ra and rb.
struct CheckInputs: Sendable {
    let dhKey: [UInt8]
    let na: [UInt8]
    let nb: [UInt8]
    let ra: [UInt8]
    let rb: [UInt8]
}

/// Stage 2's outcome: each side's DHKey check and the LTK, masked to the key size.
struct DHKeyChecks: Sendable {
    let ea: [UInt8]
    let eb: [UInt8]
    let ltk: SMPKey
}
