import Transport

/// Keys from pairing with a peer (Vol 3 Part H §3.6), kept so an encrypted link can be
/// resumed without pairing again. Keys are stored as given (the store's files are mode
/// 0600); its description never shows them, so logging a bond or a record leaks nothing.
public struct Bond: Hashable, Sendable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    /// LTK, 16 bytes.
    public var longTermKey: [UInt8]
    /// EDIV (legacy pairing; 0 with LE Secure Connections).
    public var encryptedDiversifier: UInt16
    /// Rand (legacy pairing; 0 with LE Secure Connections).
    public var random: UInt64
    /// IRK, 16 bytes, when the peer distributed one.
    public var identityResolvingKey: [UInt8]?
    /// CSRK, 16 bytes, when the peer distributed one: it verifies the peer's Signed Write
    /// Commands (Vol 3 Part H §2.4.5).
    public var signatureResolvingKey: [UInt8]?
    /// The CSRK we distributed, 16 bytes, when we did: it signs our Signed Write Commands.
    public var localSignatureKey: [UInt8]?
    /// The sign counter our next Signed Write Command with ``localSignatureKey`` may use.
    /// It is advanced in the store before each such write goes out, so no process ever
    /// signs twice with one counter.
    public var localSignCounter: UInt32
    /// The highest sign counter of the peer's that we accepted, nil before the first:
    /// a Signed Write Command with a counter at or below it is a replay, and dropped.
    public var peerSignCounter: UInt32?
    /// Encryption key size in bytes, 7...16.
    public var keySize: Int
    /// The encryption key sizes pairing can agree on (Vol 3 Part H §3.5.1).
    public static let keySizes = 7...16
    /// MITM-protected pairing.
    public var isAuthenticated: Bool
    /// Keys from LE Secure Connections pairing.
    public var isSecureConnections: Bool
    /// The identity address the peer distributed with its IRK, when it did.
    public var identityAddress: BluetoothAddress?
    /// Public or random (static), for ``identityAddress``.
    public var identityAddressType: BluetoothAddressType?

    /// Keys from a pairing.
    public init(longTermKey: [UInt8], encryptedDiversifier: UInt16 = 0, random: UInt64 = 0,
                identityResolvingKey: [UInt8]? = nil, signatureResolvingKey: [UInt8]? = nil,
                localSignatureKey: [UInt8]? = nil, localSignCounter: UInt32 = 0, peerSignCounter: UInt32? = nil,
                keySize: Int = 16, isAuthenticated: Bool = false, isSecureConnections: Bool = true,
                identityAddress: BluetoothAddress? = nil, identityAddressType: BluetoothAddressType? = nil) {
        self.longTermKey = longTermKey
        self.encryptedDiversifier = encryptedDiversifier
        self.random = random
        self.identityResolvingKey = identityResolvingKey
        self.signatureResolvingKey = signatureResolvingKey
        self.localSignatureKey = localSignatureKey
        self.localSignCounter = localSignCounter
        self.peerSignCounter = peerSignCounter
        self.keySize = keySize
        self.isAuthenticated = isAuthenticated
        self.isSecureConnections = isSecureConnections
        self.identityAddress = identityAddress
        self.identityAddressType = identityAddressType
    }

    /// The bond a completed pairing's keys make. New CSRKs start both sign counters afresh.
    init(_ keys: PairingKeys) {
        self.init(longTermKey: keys.longTermKey, encryptedDiversifier: keys.encryptedDiversifier, random: keys.random,
                  identityResolvingKey: keys.identityResolvingKey, signatureResolvingKey: keys.signatureKey,
                  localSignatureKey: keys.localSignatureKey,
                  keySize: keys.keySize, isAuthenticated: keys.isAuthenticated,
                  isSecureConnections: keys.isSecureConnections, identityAddress: keys.identityAddress,
                  identityAddressType: keys.identityAddressType)
    }

    public var description: String {
        "bond (key size \(keySize), \(isAuthenticated ? "authenticated" : "unauthenticated"), "
            + "\(isSecureConnections ? "Secure Connections" : "legacy")"
            + (identityAddress.map { ", identity \($0)" } ?? "") + ", keys <redacted>)"
    }

    public var debugDescription: String { description }

    private enum CodingKeys: String, CodingKey {
        case longTermKey, encryptedDiversifier, random, identityResolvingKey, signatureResolvingKey, keySize,
             isAuthenticated, isSecureConnections, identityAddress, identityAddressType,
             localSignatureKey, localSignCounter, peerSignCounter
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        longTermKey = try c.decode([UInt8].self, forKey: .longTermKey)
        guard longTermKey.count == 16 else {
            throw DecodingError.dataCorruptedError(forKey: .longTermKey, in: c, debugDescription: "an LTK has 16 octets")
        }
        encryptedDiversifier = try c.decode(UInt16.self, forKey: .encryptedDiversifier)
        random = try c.decode(UInt64.self, forKey: .random)
        identityResolvingKey = try c.decodeIfPresent([UInt8].self, forKey: .identityResolvingKey)
        signatureResolvingKey = try c.decodeIfPresent([UInt8].self, forKey: .signatureResolvingKey)
        // Absent from stores written before signed writes: no local key, counters afresh.
        localSignatureKey = try c.decodeIfPresent([UInt8].self, forKey: .localSignatureKey)
        localSignCounter = try c.decodeIfPresent(UInt32.self, forKey: .localSignCounter) ?? 0
        peerSignCounter = try c.decodeIfPresent(UInt32.self, forKey: .peerSignCounter)
        keySize = try c.decode(Int.self, forKey: .keySize)
        // Pairing only ever agrees on 7…16 octets (Vol 3 Part H §3.5.1); any other size is
        // an edited or damaged file, and the kernel's Load Long Term Keys takes one octet.
        guard Self.keySizes.contains(keySize) else {
            throw DecodingError.dataCorruptedError(forKey: .keySize, in: c, debugDescription: "key size \(keySize) is outside 7…16")
        }
        isAuthenticated = try c.decode(Bool.self, forKey: .isAuthenticated)
        isSecureConnections = try c.decode(Bool.self, forKey: .isSecureConnections)
        if let text = try c.decodeIfPresent(String.self, forKey: .identityAddress) {
            guard let address = BluetoothAddress(text) else {
                throw DecodingError.dataCorruptedError(forKey: .identityAddress, in: c, debugDescription: "not an address: \(text)")
            }
            identityAddress = address
        }
        if let type = try c.decodeIfPresent(UInt8.self, forKey: .identityAddressType) {
            guard let kind = BluetoothAddressType(rawValue: type) else {
                throw DecodingError.dataCorruptedError(forKey: .identityAddressType, in: c, debugDescription: "address type \(type)")
            }
            identityAddressType = kind
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(longTermKey, forKey: .longTermKey)
        try c.encode(encryptedDiversifier, forKey: .encryptedDiversifier)
        try c.encode(random, forKey: .random)
        try c.encodeIfPresent(identityResolvingKey, forKey: .identityResolvingKey)
        try c.encodeIfPresent(signatureResolvingKey, forKey: .signatureResolvingKey)
        try c.encodeIfPresent(localSignatureKey, forKey: .localSignatureKey)
        try c.encode(localSignCounter, forKey: .localSignCounter)
        try c.encodeIfPresent(peerSignCounter, forKey: .peerSignCounter)
        try c.encode(keySize, forKey: .keySize)
        try c.encode(isAuthenticated, forKey: .isAuthenticated)
        try c.encode(isSecureConnections, forKey: .isSecureConnections)
        try c.encodeIfPresent(identityAddress?.description, forKey: .identityAddress)
        try c.encodeIfPresent(identityAddressType?.rawValue, forKey: .identityAddressType)
    }

    /// The keys as the transport encrypts with them, for a link where we play `role`.
    func pairingKeys(peer address: BluetoothAddress, type: BluetoothAddressType, role: PairingKeys.Role) -> PairingKeys {
        PairingKeys(role: role, peerAddress: address, peerAddressType: type, identityAddress: identityAddress,
                    identityAddressType: identityAddressType, longTermKey: longTermKey,
                    encryptedDiversifier: encryptedDiversifier, random: random,
                    identityResolvingKey: identityResolvingKey, signatureKey: signatureResolvingKey,
                    localSignatureKey: localSignatureKey, keySize: keySize,
                    isAuthenticated: isAuthenticated, isSecureConnections: isSecureConnections)
    }
}
