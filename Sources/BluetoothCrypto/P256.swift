import BluetoothCore
import CCrypto

/// Elliptic-curve Diffie-Hellman on NIST P-256 (FIPS 186-4; Vol 3 Part H §2.3.5.6.1),
/// through libcrypto's EC_GROUP / EC_POINT / BIGNUM calls.
///
/// Coordinates, scalars and the shared secret are 32 bytes each, most significant byte
/// first (SEC 1 order). The Security Manager reverses them to and from its little-endian PDUs.
public enum P256 {
    /// A public key: the affine point (x, y).
    public struct PublicKey: Hashable, Sendable, CustomStringConvertible {
        /// 32 bytes, most significant first.
        public let x: [UInt8]
        /// 32 bytes, most significant first.
        public let y: [UInt8]

        /// Holds the coordinates; they are not checked against the curve here (that is
        /// ``P256/validate(_:)``, which every ECDH runs first).
        public init(x: [UInt8], y: [UInt8]) throws(CryptoFailure) {
            guard x.count == 32 else { throw .invalidLength(field: "P-256 x", count: x.count) }
            guard y.count == 32 else { throw .invalidLength(field: "P-256 y", count: y.count) }
            self.x = x
            self.y = y
        }

        /// A public key is public: it is printed in full.
        public var description: String { "P256.PublicKey(x: \(hexString(x, empty: "")), y: \(hexString(y, empty: "")))" }
    }

    /// A private scalar d, 1 ≤ d < n. Never printed.
    public struct PrivateKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
        /// 32 bytes, most significant first.
        public let bigEndianBytes: [UInt8]

        /// Takes a scalar, refusing zero and anything not below the group order.
        public init(bigEndian bytes: [UInt8]) throws(CryptoFailure) {
            guard bytes.count == 32 else { throw .invalidLength(field: "P-256 private key", count: bytes.count) }
            let curve = try Curve()
            guard let d = BN_bin2bn(bytes, 32, nil) else { throw .libcrypto("BN_bin2bn") }
            defer { BN_clear_free(d) }
            guard BN_is_zero(d) == 0, BN_cmp(d, curve.order) < 0 else { throw .invalidPrivateKey }
            bigEndianBytes = bytes
        }

        public var description: String { "<redacted>" }
        public var debugDescription: String { "<redacted>" }
    }

    /// A private key and its public key.
    public struct KeyPair: Sendable, CustomStringConvertible {
        public let privateKey: PrivateKey
        public let publicKey: PublicKey

        public var description: String { "P256.KeyPair(public: \(publicKey), private: <redacted>)" }
    }

    /// A fresh key pair: d drawn by libcrypto's private CSPRNG in [1, n-1], Q = d·G.
    public static func generateKeyPair() throws(CryptoFailure) -> KeyPair {
        let curve = try Curve()
        guard let d = BN_new() else { throw .libcrypto("BN_new") }
        defer { BN_clear_free(d) }
        repeat {
            guard BN_priv_rand_range(d, curve.order) == 1 else { throw .libcrypto("BN_priv_rand_range") }
        } while BN_is_zero(d) == 1
        var scalar = [UInt8](repeating: 0, count: 32)
        guard BN_bn2binpad(d, &scalar, 32) == 32 else { throw .libcrypto("BN_bn2binpad") }
        return try keyPair(privateKey: PrivateKey(bigEndian: scalar))
    }

    /// The key pair of a known private key (the spec's sample keys, a stored debug key).
    public static func keyPair(privateKey: PrivateKey) throws(CryptoFailure) -> KeyPair {
        let curve = try Curve()
        guard let d = BN_bin2bn(privateKey.bigEndianBytes, 32, nil) else { throw .libcrypto("BN_bin2bn") }
        defer { BN_clear_free(d) }
        guard let q = EC_POINT_new(curve.group) else { throw .libcrypto("EC_POINT_new") }
        defer { EC_POINT_free(q) }
        guard EC_POINT_mul(curve.group, q, d, nil, nil, curve.context) == 1 else { throw .libcrypto("EC_POINT_mul") }
        return KeyPair(privateKey: privateKey, publicKey: try curve.affine(q))
    }

    /// Throws ``CryptoFailure/publicKeyNotOnCurve`` unless `key` is a point of P-256 with
    /// both coordinates below p and not the point at infinity. P-256's cofactor is 1, so
    /// such a point is in the prime-order group.
    public static func validate(_ key: PublicKey) throws(CryptoFailure) {
        let curve = try Curve()
        let point = try curve.point(key)
        EC_POINT_free(point)
    }

    /// The x coordinate of d·Q, 32 bytes most significant first: the DHKey. `peer` is
    /// validated first; an invalid point is an error, never a shared secret.
    public static func sharedSecret(privateKey: PrivateKey, peer: PublicKey) throws(CryptoFailure) -> [UInt8] {
        let curve = try Curve()
        let q = try curve.point(peer)
        defer { EC_POINT_free(q) }
        guard let d = BN_bin2bn(privateKey.bigEndianBytes, 32, nil) else { throw .libcrypto("BN_bin2bn") }
        defer { BN_clear_free(d) }
        guard let r = EC_POINT_new(curve.group) else { throw .libcrypto("EC_POINT_new") }
        defer { EC_POINT_clear_free(r) }
        guard EC_POINT_mul(curve.group, r, nil, q, d, curve.context) == 1 else { throw .libcrypto("EC_POINT_mul") }
        guard EC_POINT_is_at_infinity(curve.group, r) == 0 else { throw .publicKeyNotOnCurve }
        return try curve.affine(r).x
    }
}

/// The P-256 group and a BN_CTX, freed together.
private final class Curve {
    let group: OpaquePointer
    let context: OpaquePointer
    let order: OpaquePointer
    let prime: OpaquePointer

    init() throws(CryptoFailure) {
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else {
            throw .libcrypto("EC_GROUP_new_by_curve_name(P-256)")
        }
        guard let context = BN_CTX_new() else { EC_GROUP_free(group); throw .libcrypto("BN_CTX_new") }
        guard let order = EC_GROUP_get0_order(group), let prime = BN_new() else {
            BN_CTX_free(context); EC_GROUP_free(group); throw .libcrypto("EC_GROUP_get0_order")
        }
        guard EC_GROUP_get_curve(group, prime, nil, nil, context) == 1 else {
            BN_free(prime); BN_CTX_free(context); EC_GROUP_free(group); throw .libcrypto("EC_GROUP_get_curve")
        }
        self.group = group
        self.context = context
        self.order = order
        self.prime = prime
    }

    deinit {
        BN_free(prime)
        BN_CTX_free(context)
        EC_GROUP_free(group)
    }

    /// The validated point of `key` (the caller frees it).
    func point(_ key: P256.PublicKey) throws(CryptoFailure) -> OpaquePointer {
        guard let x = BN_bin2bn(key.x, 32, nil) else { throw .libcrypto("BN_bin2bn") }
        defer { BN_free(x) }
        guard let y = BN_bin2bn(key.y, 32, nil) else { throw .libcrypto("BN_bin2bn") }
        defer { BN_free(y) }
        guard BN_cmp(x, prime) < 0, BN_cmp(y, prime) < 0 else { throw .publicKeyNotOnCurve }
        guard let p = EC_POINT_new(group) else { throw .libcrypto("EC_POINT_new") }
        // libcrypto refuses to set coordinates that are off the curve; the explicit checks
        // below keep the guarantee independent of that behaviour.
        guard EC_POINT_set_affine_coordinates(group, p, x, y, context) == 1,
              EC_POINT_is_on_curve(group, p, context) == 1,
              EC_POINT_is_at_infinity(group, p) == 0
        else {
            EC_POINT_free(p)
            throw .publicKeyNotOnCurve
        }
        return p
    }

    /// The affine coordinates of `point`.
    func affine(_ point: OpaquePointer) throws(CryptoFailure) -> P256.PublicKey {
        guard let x = BN_new() else { throw .libcrypto("BN_new") }
        defer { BN_clear_free(x) }
        guard let y = BN_new() else { throw .libcrypto("BN_new") }
        defer { BN_clear_free(y) }
        guard EC_POINT_get_affine_coordinates(group, point, x, y, context) == 1 else {
            throw .libcrypto("EC_POINT_get_affine_coordinates")
        }
        var xb = [UInt8](repeating: 0, count: 32)
        var yb = [UInt8](repeating: 0, count: 32)
        guard BN_bn2binpad(x, &xb, 32) == 32, BN_bn2binpad(y, &yb, 32) == 32 else { throw .libcrypto("BN_bn2binpad") }
        return try P256.PublicKey(x: xb, y: yb)
    }
}
