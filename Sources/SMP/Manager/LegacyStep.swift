/// LE legacy phase 2 (§2.3.5.2–2.3.5.5), one case per step. The TK exists from the step
/// that knows it; the peer's confirm value only once it came.
enum LegacyStep: Sendable {
    /// Passkey Entry: the user types the passkey (the TK). A responder may already hold
    /// Mconfirm, which the initiator can send before its user finished.
    case awaitingPasskey(peerConfirm: [UInt8]?)
    /// Responder: the TK is known; Mconfirm is awaited.
    case awaitingConfirm(tk: [UInt8])
    /// Initiator: Mconfirm (made with `random`) is out; Sconfirm is awaited.
    case confirmSent(tk: [UInt8], random: [UInt8])
    /// Both confirms are known and our random is out (initiator) or due (responder): the
    /// peer's random is awaited, which must open `peerConfirm`.
    case awaitingRandom(tk: [UInt8], random: [UInt8], peerConfirm: [UInt8])

    var name: String {
        switch self {
        case .awaitingPasskey: "awaiting passkey"
        case .awaitingConfirm: "awaiting confirm"
        case .confirmSent: "confirm sent"
        case .awaitingRandom: "awaiting random"
        }
    }
}
