import ATT

/// Where an attribute's value lives.
public enum AttributeKind: Hashable, Sendable {
    /// In the database (``Attribute/value``); reads and writes act on it directly.
    case stored
    /// Supplied by the application: the server emits a read or write request event
    /// carrying a request id and deadline, and the application completes it later.
    case dynamic
    /// A Client Characteristic Configuration descriptor kept per client (and persisted
    /// for bonded clients).
    case clientCharacteristicConfiguration
    /// The Client Supported Features characteristic value, kept per client.
    case clientSupportedFeatures
    /// The Database Hash characteristic value, computed from the database.
    case databaseHash
}

/// One attribute of the server's database (Vol 3 Part F §3.2).
public struct Attribute: Hashable, Sendable {
    public var handle: AttributeHandle
    public var type: BluetoothUUID
    public var permissions: AttributePermissions
    public var kind: AttributeKind
    /// The stored value (for ``AttributeKind/stored``); for per-client kinds, the value a
    /// new client starts with.
    public var value: [UInt8]
    /// Longest value a write may leave (Vol 3 Part F §3.2.9 allows at most 512).
    public var maximumLength: Int
    /// For service declarations, the last handle of the service group.
    public var groupEnd: AttributeHandle?

    public init(handle: AttributeHandle, type: BluetoothUUID, permissions: AttributePermissions,
                kind: AttributeKind = .stored, value: [UInt8] = [], maximumLength: Int = 512,
                groupEnd: AttributeHandle? = nil) {
        self.handle = handle
        self.type = type
        self.permissions = permissions
        self.kind = kind
        self.value = value
        self.maximumLength = maximumLength
        self.groupEnd = groupEnd
    }

    /// Whether this is a primary or secondary service declaration.
    public var isServiceDeclaration: Bool {
        type == GATTAttributeType.primaryService || type == GATTAttributeType.secondaryService
    }
}

/// A service as the database groups it.
public struct ServiceRecord: Hashable, Sendable {
    public var uuid: BluetoothUUID
    public var isPrimary: Bool
    /// Declaration handle through the end of the group (may include reserved handles).
    public var range: AttributeHandleRange
}

/// A characteristic as the database groups it.
public struct CharacteristicRecord: Hashable, Sendable {
    public var uuid: BluetoothUUID
    public var declarationHandle: AttributeHandle
    public var valueHandle: AttributeHandle
    /// Last handle of the characteristic (its last descriptor).
    public var endHandle: AttributeHandle
    public var properties: CharacteristicProperties
    public var extendedProperties: CharacteristicExtendedProperties
    /// Its Client Characteristic Configuration descriptor, if any.
    public var clientConfigurationHandle: AttributeHandle?
}
