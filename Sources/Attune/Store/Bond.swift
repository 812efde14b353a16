/// Keys from pairing with a peripheral (Vol 3 Part H §3.6), kept so an encrypted link can
/// be resumed without pairing again. Keys are stored as given; never log them.
public struct Bond: Hashable, Sendable, Codable {
    /// LTK, 16 bytes.
    public var longTermKey: [UInt8]
    /// EDIV (legacy pairing; 0 with LE Secure Connections).
    public var encryptedDiversifier: UInt16
    /// Rand (legacy pairing; 0 with LE Secure Connections).
    public var random: UInt64
    /// IRK, 16 bytes, when the peer distributed one.
    public var identityResolvingKey: [UInt8]?
    /// CSRK, 16 bytes, when the peer distributed one.
    public var signatureResolvingKey: [UInt8]?
    /// Encryption key size in bytes, 7...16.
    public var keySize: Int
    /// MITM-protected pairing.
    public var isAuthenticated: Bool
    /// Keys from LE Secure Connections pairing.
    public var isSecureConnections: Bool

    /// Keys from a pairing.
    public init(longTermKey: [UInt8], encryptedDiversifier: UInt16 = 0, random: UInt64 = 0,
                identityResolvingKey: [UInt8]? = nil, signatureResolvingKey: [UInt8]? = nil, keySize: Int = 16,
                isAuthenticated: Bool = false, isSecureConnections: Bool = true) {
        self.longTermKey = longTermKey
        self.encryptedDiversifier = encryptedDiversifier
        self.random = random
        self.identityResolvingKey = identityResolvingKey
        self.signatureResolvingKey = signatureResolvingKey
        self.keySize = keySize
        self.isAuthenticated = isAuthenticated
        self.isSecureConnections = isSecureConnections
    }
}
