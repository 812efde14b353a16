extension ATTErrorCode {
    /// What the attribute asks of the link, for the four security errors (Vol 3 Part F
    /// §3.4.1.1; the permissions of Vol 3 Part C §10.3); nil for every other code.
    /// Says what is missing, never how to get it: that depends on the transport.
    public var securityRequirement: String? {
        switch self {
        case .insufficientAuthentication:
            "the attribute requires an authenticated link: a bond made by pairing, and the link encrypted with it"
        case .insufficientEncryption:
            "the attribute requires an encrypted link, which needs a bond made by pairing"
        case .encryptionKeySizeTooShort:
            "the attribute requires a longer encryption key than this link's"
        case .insufficientAuthorization:
            "the attribute requires authorization by the peripheral"
        default:
            nil
        }
    }
}
