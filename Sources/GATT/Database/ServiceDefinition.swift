import ATT

/// A service to place in an ``AttributeDatabase``: the value form of the DSL and of the
/// JSON schema's `services` form.
public struct ServiceDefinition: Hashable, Sendable {
    public var uuid: BluetoothUUID
    public var isPrimary: Bool
    /// A name other services use to include this one.
    public var id: String?
    /// Explicit declaration handle; nil allocates the next free handle.
    public var handle: AttributeHandle?
    /// Extra handles kept free at the end of the group, so the service can grow without
    /// moving the services after it.
    public var reservedHandles: Int
    /// Ids of the services this one includes.
    public var includes: [String]
    public var characteristics: [CharacteristicDefinition]

    public init(_ uuid: BluetoothUUID, primary: Bool = true, id: String? = nil, handle: AttributeHandle? = nil,
                reservedHandles: Int = 0, includes: [String] = [], characteristics: [CharacteristicDefinition] = []) {
        self.uuid = uuid
        self.isPrimary = primary
        self.id = id
        self.handle = handle
        self.reservedHandles = reservedHandles
        self.includes = includes
        self.characteristics = characteristics
    }

    /// DSL form: `Service(BluetoothUUID(0x180D)) { Characteristic(...) }`.
    public init(_ uuid: BluetoothUUID, primary: Bool = true, id: String? = nil, handle: AttributeHandle? = nil,
                reservedHandles: Int = 0, includes: [String] = [],
                @CharacteristicBuilder _ characteristics: () -> [CharacteristicDefinition]) {
        self.init(uuid, primary: primary, id: id, handle: handle, reservedHandles: reservedHandles,
                  includes: includes, characteristics: characteristics())
    }

    /// Number of handles the service occupies, reserved ones included (explicit
    /// characteristic handles may spread it further). Reservations count at most 65536,
    /// so a hostile value cannot overflow the sum.
    public var handleCount: Int {
        1 + includes.count + characteristics.reduce(0) { $0 + $1.handleCount } + min(max(0, reservedHandles), 0x10000)
    }
}

/// A characteristic: declaration, value and descriptors.
public struct CharacteristicDefinition: Hashable, Sendable {
    public var uuid: BluetoothUUID
    public var properties: CharacteristicProperties
    /// Non-empty adds a Characteristic Extended Properties descriptor (and the property bit).
    public var extendedProperties: CharacteristicExtendedProperties
    public var permissions: AttributePermissions
    public var kind: AttributeKind
    public var value: [UInt8]
    public var maximumLength: Int
    /// Explicit declaration handle (the value follows it); nil allocates.
    public var handle: AttributeHandle?
    public var descriptors: [DescriptorDefinition]

    /// - Parameters:
    ///   - dynamic: values come from the application's read/write handlers.
    ///   - descriptors: a CCCD is added automatically for notify/indicate when missing.
    public init(_ uuid: BluetoothUUID, properties: CharacteristicProperties,
                extendedProperties: CharacteristicExtendedProperties = [],
                permissions: AttributePermissions? = nil, value: [UInt8] = [], dynamic: Bool = false,
                maximumLength: Int = 512, handle: AttributeHandle? = nil, descriptors: [DescriptorDefinition] = []) {
        self.uuid = uuid
        self.properties = extendedProperties.isEmpty ? properties : properties.union(.extendedProperties)
        self.extendedProperties = extendedProperties
        let readable = properties.contains(.read)
        let writable = !properties.isDisjoint(with: [.write, .writeWithoutResponse, .authenticatedSignedWrites])
        self.permissions = permissions ?? AttributePermissions(read: readable ? .open : .denied,
                                                               write: writable ? .open : .denied)
        self.kind = dynamic ? .dynamic : .stored
        self.value = value
        self.maximumLength = maximumLength
        self.handle = handle
        var descriptors = descriptors
        if !properties.isDisjoint(with: [.notify, .indicate]),
           !descriptors.contains(where: { $0.uuid == GATTAttributeType.clientCharacteristicConfiguration }) {
            descriptors.insert(.clientCharacteristicConfiguration(), at: 0)
        }
        if !extendedProperties.isEmpty,
           !descriptors.contains(where: { $0.uuid == GATTAttributeType.characteristicExtendedProperties }) {
            let v = extendedProperties.rawValue
            descriptors.insert(DescriptorDefinition(GATTAttributeType.characteristicExtendedProperties,
                                                    permissions: .readOnly,
                                                    value: [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)]),
                               at: 0)
        }
        self.descriptors = descriptors
    }

    /// DSL form with descriptors in a trailing builder.
    public init(_ uuid: BluetoothUUID, properties: CharacteristicProperties,
                extendedProperties: CharacteristicExtendedProperties = [],
                permissions: AttributePermissions? = nil, value: [UInt8] = [], dynamic: Bool = false,
                maximumLength: Int = 512, handle: AttributeHandle? = nil,
                @DescriptorBuilder descriptors: () -> [DescriptorDefinition]) {
        self.init(uuid, properties: properties, extendedProperties: extendedProperties, permissions: permissions,
                  value: value, dynamic: dynamic, maximumLength: maximumLength, handle: handle,
                  descriptors: descriptors())
    }

    public var handleCount: Int { 2 + descriptors.count }
}

/// A characteristic descriptor.
public struct DescriptorDefinition: Hashable, Sendable {
    public var uuid: BluetoothUUID
    public var permissions: AttributePermissions
    public var kind: AttributeKind
    public var value: [UInt8]
    public var maximumLength: Int

    public init(_ uuid: BluetoothUUID, permissions: AttributePermissions = .readOnly, value: [UInt8] = [],
                dynamic: Bool = false, maximumLength: Int = 512) {
        self.uuid = uuid
        self.permissions = permissions
        self.kind = dynamic ? .dynamic : .stored
        self.value = value
        self.maximumLength = maximumLength
    }

    /// A Client Characteristic Configuration descriptor, kept per client by the server.
    public static func clientCharacteristicConfiguration(
        permissions: AttributePermissions = .readWrite) -> DescriptorDefinition {
        var d = DescriptorDefinition(GATTAttributeType.clientCharacteristicConfiguration, permissions: permissions,
                                     value: [0, 0], maximumLength: 2)
        d.kind = .clientCharacteristicConfiguration
        return d
    }

    /// A Characteristic User Description (UTF-8).
    public static func userDescription(_ text: String, writable: Bool = false) -> DescriptorDefinition {
        DescriptorDefinition(GATTAttributeType.characteristicUserDescription,
                             permissions: writable ? .readWrite : .readOnly, value: Array(text.utf8))
    }

    /// A Characteristic Presentation Format descriptor (Vol 3 Part G §3.3.3.5).
    public static func presentationFormat(format: UInt8, exponent: Int8 = 0, unit: UInt16, namespace: UInt8 = 1,
                                          description: UInt16 = 0) -> DescriptorDefinition {
        DescriptorDefinition(GATTAttributeType.characteristicPresentationFormat, value: [
            format, UInt8(bitPattern: exponent), UInt8(truncatingIfNeeded: unit), UInt8(truncatingIfNeeded: unit >> 8),
            namespace, UInt8(truncatingIfNeeded: description), UInt8(truncatingIfNeeded: description >> 8),
        ])
    }
}

public typealias Service = ServiceDefinition
public typealias Characteristic = CharacteristicDefinition
public typealias Descriptor = DescriptorDefinition

/// Collects services in a database DSL block.
@resultBuilder
public enum ServiceBuilder {
    public static func buildExpression(_ s: ServiceDefinition) -> [ServiceDefinition] { [s] }
    public static func buildExpression(_ s: [ServiceDefinition]) -> [ServiceDefinition] { s }
    public static func buildBlock(_ parts: [ServiceDefinition]...) -> [ServiceDefinition] { parts.flatMap { $0 } }
    public static func buildOptional(_ s: [ServiceDefinition]?) -> [ServiceDefinition] { s ?? [] }
    public static func buildEither(first s: [ServiceDefinition]) -> [ServiceDefinition] { s }
    public static func buildEither(second s: [ServiceDefinition]) -> [ServiceDefinition] { s }
    public static func buildArray(_ s: [[ServiceDefinition]]) -> [ServiceDefinition] { s.flatMap { $0 } }
}

/// Collects characteristics in a service DSL block.
@resultBuilder
public enum CharacteristicBuilder {
    public static func buildExpression(_ c: CharacteristicDefinition) -> [CharacteristicDefinition] { [c] }
    public static func buildExpression(_ c: [CharacteristicDefinition]) -> [CharacteristicDefinition] { c }
    public static func buildBlock(_ parts: [CharacteristicDefinition]...) -> [CharacteristicDefinition] { parts.flatMap { $0 } }
    public static func buildOptional(_ c: [CharacteristicDefinition]?) -> [CharacteristicDefinition] { c ?? [] }
    public static func buildEither(first c: [CharacteristicDefinition]) -> [CharacteristicDefinition] { c }
    public static func buildEither(second c: [CharacteristicDefinition]) -> [CharacteristicDefinition] { c }
    public static func buildArray(_ c: [[CharacteristicDefinition]]) -> [CharacteristicDefinition] { c.flatMap { $0 } }
}

/// Collects descriptors in a characteristic DSL block.
@resultBuilder
public enum DescriptorBuilder {
    public static func buildExpression(_ d: DescriptorDefinition) -> [DescriptorDefinition] { [d] }
    public static func buildBlock(_ parts: [DescriptorDefinition]...) -> [DescriptorDefinition] { parts.flatMap { $0 } }
    public static func buildOptional(_ d: [DescriptorDefinition]?) -> [DescriptorDefinition] { d ?? [] }
    public static func buildEither(first d: [DescriptorDefinition]) -> [DescriptorDefinition] { d }
    public static func buildEither(second d: [DescriptorDefinition]) -> [DescriptorDefinition] { d }
}
