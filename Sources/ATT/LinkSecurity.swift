/// The security state of the link an ATT bearer runs on, as the server checks it
/// against attribute permissions (Vol 3 Part F §3.2.5).
///
/// ATT's vocabulary, not GATT's: the transports report it for every link they carry
/// (Transport needs nothing else of GATT), and GATT's server checks it.
public struct LinkSecurity: Hashable, Sendable {
    public var encrypted: Bool
    /// The key was generated with MITM protection.
    public var authenticated: Bool
    /// LE Secure Connections pairing.
    public var secureConnections: Bool
    /// Encryption key size in octets (7…16); 0 when not encrypted.
    public var keySize: UInt8

    public init(encrypted: Bool = false, authenticated: Bool = false, secureConnections: Bool = false, keySize: UInt8 = 0) {
        self.encrypted = encrypted
        self.authenticated = authenticated
        self.secureConnections = secureConnections
        self.keySize = keySize
    }

    /// Security level 1: no encryption.
    public static let none = LinkSecurity()
    /// Encrypted with an unauthenticated 16-octet key.
    public static let encrypted = LinkSecurity(encrypted: true, keySize: 16)
    /// Encrypted with an authenticated 16-octet key.
    public static let authenticated = LinkSecurity(encrypted: true, authenticated: true, keySize: 16)
    /// Authenticated LE Secure Connections with a 16-octet key.
    public static let secure = LinkSecurity(encrypted: true, authenticated: true, secureConnections: true, keySize: 16)
}
