import HCI

/// What a completed pairing left for the next links, whichever transport paired (the
/// userland host's Security Manager; later the kernel's mgmt New LTK / New IRK / New
/// CSRK events): the managers store it as a bond.
///
/// Its description never shows a key.
public struct PairingKeys: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Our role on the link that paired.
    public enum Role: Hashable, Sendable { case central, peripheral }

    public var role: Role
    /// The address the link was made with (it may be a resolvable private address).
    public var peerAddress: BluetoothAddress
    public var peerAddressType: BluetoothAddressType
    /// The identity address the peer distributed (IdKey), when it did.
    public var identityAddress: BluetoothAddress?
    /// Public or random (static), for ``identityAddress``.
    public var identityAddressType: BluetoothAddressType?
    /// The key that encrypts the next links: the LE Secure Connections LTK (EDIV and Rand
    /// zero) or, for LE legacy pairing, the LTK the peripheral distributed with its EDIV
    /// and Rand (the peer's as central, ours as peripheral). 16 octets, least significant first.
    public var longTermKey: [UInt8]
    public var encryptedDiversifier: UInt16
    public var random: UInt64
    /// The peer's IRK, 16 octets, when it distributed one.
    public var identityResolvingKey: [UInt8]?
    /// The peer's CSRK, 16 octets, when it distributed one: it verifies the peer's
    /// Signed Write Commands (Vol 3 Part H §2.4.5).
    public var signatureKey: [UInt8]?
    /// The CSRK we distributed, 16 octets, when we did: it signs our Signed Write Commands.
    public var localSignatureKey: [UInt8]?
    /// The negotiated encryption key size, 7–16 octets.
    public var keySize: Int
    /// MITM-protected (any model but Just Works).
    public var isAuthenticated: Bool
    /// LE Secure Connections.
    public var isSecureConnections: Bool

    public init(role: Role, peerAddress: BluetoothAddress, peerAddressType: BluetoothAddressType,
                identityAddress: BluetoothAddress? = nil, identityAddressType: BluetoothAddressType? = nil,
                longTermKey: [UInt8], encryptedDiversifier: UInt16 = 0, random: UInt64 = 0,
                identityResolvingKey: [UInt8]? = nil, signatureKey: [UInt8]? = nil,
                localSignatureKey: [UInt8]? = nil, keySize: Int = 16,
                isAuthenticated: Bool = false, isSecureConnections: Bool = true) {
        self.role = role
        self.peerAddress = peerAddress
        self.peerAddressType = peerAddressType
        self.identityAddress = identityAddress
        self.identityAddressType = identityAddressType
        self.longTermKey = longTermKey
        self.encryptedDiversifier = encryptedDiversifier
        self.random = random
        self.identityResolvingKey = identityResolvingKey
        self.signatureKey = signatureKey
        self.localSignatureKey = localSignatureKey
        self.keySize = keySize
        self.isAuthenticated = isAuthenticated
        self.isSecureConnections = isSecureConnections
    }

    public var description: String {
        "keys from pairing with \(peerAddress) (\(peerAddressType))"
            + (identityAddress.map { ", identity \($0)" } ?? "")
            + ", key size \(keySize), \(isAuthenticated ? "authenticated" : "unauthenticated")"
            + (isSecureConnections ? ", Secure Connections" : ", legacy") + ", keys <redacted>"
    }

    public var debugDescription: String { description }
}
