/// A characteristic, like `CBCharacteristic`: the declaration's properties and handles,
/// and the descriptors once discovered.
public struct Characteristic: Hashable, Sendable, Codable, Identifiable {
    /// The characteristic type.
    public var uuid: BluetoothUUID
    /// What the declaration allows: read, write, notify...
    public var properties: CharacteristicProperties
    /// Handle of the characteristic declaration.
    public var declarationHandle: AttributeHandle
    /// Handle of the characteristic value: what reads, writes and notifications name.
    public var valueHandle: AttributeHandle
    /// Last handle that belongs to this characteristic (its last descriptor).
    public var endHandle: AttributeHandle
    /// Start handle of the service the characteristic belongs to.
    public var serviceHandle: AttributeHandle
    /// nil until ``Peripheral/discoverDescriptors(for:)`` ran.
    public var descriptors: [Descriptor]?

    public var id: AttributeHandle { valueHandle }

    /// A characteristic value; discovery makes these, tests and caches may too.
    public init(uuid: BluetoothUUID, properties: CharacteristicProperties, declarationHandle: AttributeHandle,
                valueHandle: AttributeHandle, endHandle: AttributeHandle, serviceHandle: AttributeHandle,
                descriptors: [Descriptor]? = nil) {
        self.uuid = uuid
        self.properties = properties
        self.declarationHandle = declarationHandle
        self.valueHandle = valueHandle
        self.endHandle = endHandle
        self.serviceHandle = serviceHandle
        self.descriptors = descriptors
    }

    /// The Client Characteristic Configuration descriptor, once descriptors are known.
    public var clientConfigurationDescriptor: Descriptor? {
        descriptors?.first { $0.uuid == BluetoothUUID(0x2902) }
    }

    private enum CodingKeys: String, CodingKey {
        case uuid, properties, declarationHandle, valueHandle, endHandle, serviceHandle, descriptors
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        uuid = try c.decodeBluetoothUUID(forKey: .uuid)
        properties = CharacteristicProperties(rawValue: try c.decode(UInt8.self, forKey: .properties))
        declarationHandle = AttributeHandle(try c.decode(UInt16.self, forKey: .declarationHandle))
        valueHandle = AttributeHandle(try c.decode(UInt16.self, forKey: .valueHandle))
        endHandle = AttributeHandle(try c.decode(UInt16.self, forKey: .endHandle))
        serviceHandle = AttributeHandle(try c.decode(UInt16.self, forKey: .serviceHandle))
        descriptors = try c.decodeIfPresent([Descriptor].self, forKey: .descriptors)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(uuid.description, forKey: .uuid)
        try c.encode(properties.rawValue, forKey: .properties)
        try c.encode(declarationHandle.rawValue, forKey: .declarationHandle)
        try c.encode(valueHandle.rawValue, forKey: .valueHandle)
        try c.encode(endHandle.rawValue, forKey: .endHandle)
        try c.encode(serviceHandle.rawValue, forKey: .serviceHandle)
        try c.encodeIfPresent(descriptors, forKey: .descriptors)
    }
}
