import HCI
import SMP

/// A key the kernel's SMP handed out after pairing, from the management channel's New
/// Long Term Key, New Identity Resolving Key and New Signature Resolving Key events.
///
/// Key values are ``SMPKey``s, whose descriptions print "<redacted>": logging one of
/// these never shows a key.
public enum KernelPairingKey: Hashable, Sendable {
    case longTermKey(KernelLongTermKey)
    case identityResolvingKey(KernelIdentityResolvingKey)
    case signatureKey(KernelSignatureKey)

    static let newLongTermKeyEvent: UInt16 = 0x000A
    static let newIdentityResolvingKeyEvent: UInt16 = 0x0018
    static let newSignatureResolvingKeyEvent: UInt16 = 0x0019

    /// The peer the key belongs to.
    public var peer: KernelPeer {
        switch self {
        case .longTermKey(let key): key.peer
        case .identityResolvingKey(let key): key.peer
        case .signatureKey(let key): key.peer
        }
    }

    /// The key in a management event, or nil for other events and damaged packets.
    init?(_ packet: MgmtPacket) {
        var reader = MgmtReader(packet.parameters)
        switch packet.code {
        case Self.newLongTermKeyEvent:
            // Store_Hint (1), then the key as Load Long Term Keys carries it (36).
            guard let hint = reader.uint8(), var key = KernelLongTermKey(reading: &reader, adapterIndex: packet.index) else { return nil }
            key.storeHint = hint != 0
            self = .longTermKey(key)
        case Self.newIdentityResolvingKeyEvent:
            // Store_Hint (1), Random_Address (6), Address (6), Address_Type (1), Value (16).
            guard let hint = reader.uint8(), let random = reader.take(6).flatMap(BluetoothAddress.init(littleEndian:)),
                  let peer = reader.address(adapterIndex: packet.index), let value = reader.take(16).flatMap(SMPKey.init) else { return nil }
            self = .identityResolvingKey(KernelIdentityResolvingKey(
                peer: peer, value: value, resolvedAddress: random == BluetoothAddress(rawValue: 0) ? nil : random, storeHint: hint != 0))
        case Self.newSignatureResolvingKeyEvent:
            // Store_Hint (1), Address (6), Address_Type (1), Type (1), Value (16).
            guard let hint = reader.uint8(), let peer = reader.address(adapterIndex: packet.index), let type = reader.uint8(),
                  let kind = KernelSignatureKey.Kind(rawValue: type), let value = reader.take(16).flatMap(SMPKey.init) else { return nil }
            self = .signatureKey(KernelSignatureKey(peer: peer, kind: kind, value: value, storeHint: hint != 0))
        default:
            return nil
        }
    }
}

/// An LE Long Term Key (mgmt New Long Term Key; loaded again with Load Long Term Keys).
public struct KernelLongTermKey: Hashable, Sendable {
    /// The mgmt Key_Type values.
    public enum KeyType: UInt8, Hashable, Sendable, CustomStringConvertible {
        case unauthenticatedLegacy = 0x00
        case authenticatedLegacy = 0x01
        case unauthenticatedP256 = 0x02
        case authenticatedP256 = 0x03
        case debugP256 = 0x04

        /// Made with MITM protection (passkey or numeric comparison).
        public var isAuthenticated: Bool { self == .authenticatedLegacy || self == .authenticatedP256 }
        /// From LE Secure Connections.
        public var isSecureConnections: Bool { rawValue >= 0x02 }

        public var description: String {
            switch self {
            case .unauthenticatedLegacy: "unauthenticated legacy"
            case .authenticatedLegacy: "authenticated legacy"
            case .unauthenticatedP256: "unauthenticated P-256"
            case .authenticatedP256: "authenticated P-256"
            case .debugP256: "debug P-256"
            }
        }
    }

    /// The peer's identity (public or static random address).
    public var peer: KernelPeer
    public var type: KeyType
    /// Whether the key is used when the local device is the central (legacy keys come
    /// in one per direction; Secure Connections keys serve both).
    public var central: Bool
    /// Encryption key size, 7–16 octets.
    public var encryptionSize: UInt8
    /// EDIV and Rand (zero for Secure Connections).
    public var encryptedDiversifier: UInt16
    public var random: UInt64
    public var value: SMPKey
    /// The kernel's advice to keep the key (false without bonding, or for a peer address
    /// with no identity behind it).
    public var storeHint: Bool

    public init(peer: KernelPeer, type: KeyType, central: Bool, encryptionSize: UInt8, encryptedDiversifier: UInt16,
                random: UInt64, value: SMPKey, storeHint: Bool = true) {
        self.peer = peer
        self.type = type
        self.central = central
        self.encryptionSize = encryptionSize
        self.encryptedDiversifier = encryptedDiversifier
        self.random = random
        self.value = value
        self.storeHint = storeHint
    }

    /// Address (6), Address_Type (1), Key_Type (1), Central (1), Encryption_Size (1),
    /// Encryption_Diversifier (2), Random_Number (8), Value (16): 36 octets.
    static let encodedLength = 36

    init?(reading reader: inout MgmtReader, adapterIndex: UInt16) {
        guard let peer = reader.address(adapterIndex: adapterIndex), let rawType = reader.uint8(),
              let type = KeyType(rawValue: rawType), let central = reader.uint8(), let size = reader.uint8(),
              let ediv = reader.uint16(), let random = reader.uint64(),
              let value = reader.take(16).flatMap(SMPKey.init) else { return nil }
        self.init(peer: peer, type: type, central: central != 0, encryptionSize: size, encryptedDiversifier: ediv,
                  random: random, value: value)
    }

    var encoded: [UInt8] {
        peer.encodedAddress + [type.rawValue, central ? 1 : 0, encryptionSize]
            + encryptedDiversifier.mgmtBytes + random.mgmtBytes + value.bytes
    }
}

/// A peer's Identity Resolving Key and identity address (mgmt New Identity Resolving Key;
/// loaded again with Load Identity Resolving Keys).
public struct KernelIdentityResolvingKey: Hashable, Sendable {
    /// The identity address.
    public var peer: KernelPeer
    public var value: SMPKey
    /// The resolvable private address the identity was resolved from; nil when the peer
    /// paired under its identity address.
    public var resolvedAddress: BluetoothAddress?
    public var storeHint: Bool

    public init(peer: KernelPeer, value: SMPKey, resolvedAddress: BluetoothAddress? = nil, storeHint: Bool = true) {
        self.peer = peer
        self.value = value
        self.resolvedAddress = resolvedAddress
        self.storeHint = storeHint
    }

    /// Address (6), Address_Type (1), Value (16): 23 octets, as Load Identity Resolving Keys carries it.
    static let encodedLength = 23

    var encoded: [UInt8] { peer.encodedAddress + value.bytes }
}

/// A Connection Signature Resolving Key (mgmt New Signature Resolving Key).
public struct KernelSignatureKey: Hashable, Sendable {
    /// The mgmt CSRK Type values.
    public enum Kind: UInt8, Hashable, Sendable {
        case unauthenticatedLocal = 0x00
        case unauthenticatedRemote = 0x01
        case authenticatedLocal = 0x02
        case authenticatedRemote = 0x03

        /// Ours, for signing what we send (else the peer's, for checking what it sends).
        public var isLocal: Bool { self == .unauthenticatedLocal || self == .authenticatedLocal }
        public var isAuthenticated: Bool { rawValue >= 0x02 }
    }

    public var peer: KernelPeer
    public var kind: Kind
    public var value: SMPKey
    public var storeHint: Bool

    public init(peer: KernelPeer, kind: Kind, value: SMPKey, storeHint: Bool = true) {
        self.peer = peer
        self.kind = kind
        self.value = value
        self.storeHint = storeHint
    }
}

/// The commands that give the kernel its keys back on start (when no bluetoothd does).
enum KernelKeyCommands {
    static let loadLongTermKeys: UInt16 = 0x0013
    static let loadIdentityResolvingKeys: UInt16 = 0x0030

    /// Load Long Term Keys: Key_Count (2), then 36 octets per key. Nil when the count
    /// does not fit the command (the kernel would refuse it).
    static func loadLongTermKeys(_ keys: [KernelLongTermKey], index: UInt16) -> [UInt8]? {
        parameters(keys.map(\.encoded), each: KernelLongTermKey.encodedLength)
            .flatMap { MgmtPacket.command(loadLongTermKeys, index: index, parameters: $0) }
    }

    /// Load Identity Resolving Keys: Key_Count (2), then 23 octets per key.
    static func loadIdentityResolvingKeys(_ keys: [KernelIdentityResolvingKey], index: UInt16) -> [UInt8]? {
        parameters(keys.map(\.encoded), each: KernelIdentityResolvingKey.encodedLength)
            .flatMap { MgmtPacket.command(loadIdentityResolvingKeys, index: index, parameters: $0) }
    }

    private static func parameters(_ entries: [[UInt8]], each: Int) -> [UInt8]? {
        // The whole command's parameter length is 16 bits.
        guard entries.count <= (Int(UInt16.max) - 2) / each else { return nil }
        return UInt16(entries.count).mgmtBytes + entries.joined()
    }
}
