import BluetoothCrypto

/// Where a ``SecurityManager`` gets its randomness: nonces, passkeys, distributed keys and
/// its P-256 key pair. Injected so tests are deterministic; ``SystemRandomSource`` is the default.
public protocol SMPRandomSource: Sendable {
    /// `count` random bytes.
    mutating func randomBytes(_ count: Int) throws(CryptoFailure) -> [UInt8]
    /// A fresh P-256 key pair for LE Secure Connections.
    mutating func makeKeyPair() throws(CryptoFailure) -> P256.KeyPair
}

/// libcrypto's CSPRNG (RAND_bytes) and its P-256 key generation.
public struct SystemRandomSource: SMPRandomSource {
    public init() {}

    public mutating func randomBytes(_ count: Int) throws(CryptoFailure) -> [UInt8] { try SecureRandom.bytes(count) }

    public mutating func makeKeyPair() throws(CryptoFailure) -> P256.KeyPair { try P256.generateKeyPair() }
}
