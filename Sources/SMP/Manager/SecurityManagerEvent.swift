/// What a ``SecurityManager`` asks of the user, the link layer or the application.
public enum SecurityManagerEvent: Hashable, Sendable {
    /// Show these six digits to the user (Passkey Entry, this side displays).
    case displayPasskey(UInt32)
    /// Ask the user to type the passkey; answer with ``SecurityManagerAnswer/passkey(_:)``.
    case enterPasskey
    /// Ask the user whether both devices show these six digits; answer with
    /// ``SecurityManagerAnswer/numericComparison(_:)``.
    case confirmNumericComparison(UInt32)
    /// Ask the user whether to pair with this peer at all (Secure Connections Just Works,
    /// with ``SMPConfiguration/confirmsJustWorks``); answer with
    /// ``SecurityManagerAnswer/numericComparison(_:)``.
    case confirmJustWorks
    /// The peer's keypress notification during Passkey Entry.
    case keypress(KeypressNotification.NotificationType)
    /// The peripheral sent a Security Request (reported even when pairing starts by itself).
    case securityRequested(AuthenticationRequirements)
    /// Central: start encryption with this key (HCI LE Enable Encryption). The STK or the
    /// Secure Connections LTK, with EDIV and Rand zero, masked to `keySize`.
    case startEncryption(key: SMPKey, ediv: UInt16, rand: UInt64, keySize: Int)
    /// Peripheral: answer the controller's LTK request with this key.
    case longTermKeyReply(SMPKey)
    /// Peripheral: answer the controller's LTK request negatively.
    case longTermKeyNegativeReply
    /// Pairing completed; the keys are in the result.
    case paired(PairingResult)
    /// Pairing ended without keys.
    case failed(PairingFailure)
}

/// A user's answer to a request.
public enum SecurityManagerAnswer: Hashable, Sendable {
    /// The passkey typed, 0–999999.
    case passkey(UInt32)
    /// Numeric comparison: the numbers match (true) or not.
    case numericComparison(Bool)
    /// The peer's OOB data (Secure Connections), received over another channel; give it
    /// before pairing starts.
    case oobData(SMPOOBData)
    /// The user declined.
    case refuse
}
