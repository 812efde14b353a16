/// Why a cryptographic operation gave no result.
public enum CryptoFailure: Error, Hashable, Sendable {
    /// An input had the wrong number of bytes.
    case invalidLength(field: String, count: Int)
    /// A peer's public key is not a point on P-256 (or is the point at infinity); no shared
    /// secret is ever computed from it (the invalid-curve attack, CVE-2018-5383).
    case publicKeyNotOnCurve
    /// A private key is zero or not below the curve order.
    case invalidPrivateKey
    /// libcrypto refused (a missing provider, an allocation failure).
    case libcrypto(String)
}
