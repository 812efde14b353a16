/// The AuthReq octet (Vol 3 Part H §3.5.1, Figure 3.3).
public struct AuthenticationRequirements: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bonding_Flags = 01: the keys are to be stored.
    public static let bonding = Self(rawValue: 0x01)
    /// MITM protection requested.
    public static let mitm = Self(rawValue: 0x04)
    /// LE Secure Connections supported.
    public static let secureConnections = Self(rawValue: 0x08)
    /// Keypress notifications supported (Passkey Entry).
    public static let keypress = Self(rawValue: 0x10)
    /// h7 supported for cross-transport key derivation.
    public static let ct2 = Self(rawValue: 0x20)
}
