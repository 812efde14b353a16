/// A service on a remote peripheral, like `CBService`.
public struct Service: Hashable, Sendable, Codable, Identifiable {
    /// The service type.
    public var uuid: BluetoothUUID
    /// False for a secondary service (reachable only through includes).
    public var isPrimary: Bool
    /// Handle of the service declaration.
    public var startHandle: AttributeHandle
    /// Last handle of the service's group.
    public var endHandle: AttributeHandle
    /// Start handles of the included services; nil until discovered.
    public var includedServiceHandles: [AttributeHandle]?
    /// nil until ``Peripheral/discoverCharacteristics(_:for:)`` ran.
    public var characteristics: [Characteristic]?

    public var id: AttributeHandle { startHandle }

    /// A service value; discovery makes these, tests and caches may too.
    public init(uuid: BluetoothUUID, isPrimary: Bool = true, startHandle: AttributeHandle, endHandle: AttributeHandle,
                includedServiceHandles: [AttributeHandle]? = nil, characteristics: [Characteristic]? = nil) {
        self.uuid = uuid
        self.isPrimary = isPrimary
        self.startHandle = startHandle
        self.endHandle = endHandle
        self.includedServiceHandles = includedServiceHandles
        self.characteristics = characteristics
    }

    /// Whether `handle` lies within this service's group.
    public func contains(_ handle: AttributeHandle) -> Bool {
        startHandle <= handle && handle <= endHandle
    }

    private enum CodingKeys: String, CodingKey {
        case uuid, isPrimary, startHandle, endHandle, includedServiceHandles, characteristics
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        uuid = try c.decodeBluetoothUUID(forKey: .uuid)
        isPrimary = try c.decode(Bool.self, forKey: .isPrimary)
        startHandle = AttributeHandle(try c.decode(UInt16.self, forKey: .startHandle))
        endHandle = AttributeHandle(try c.decode(UInt16.self, forKey: .endHandle))
        includedServiceHandles = try c.decodeIfPresent([UInt16].self, forKey: .includedServiceHandles)?
            .map(AttributeHandle.init(rawValue:))
        characteristics = try c.decodeIfPresent([Characteristic].self, forKey: .characteristics)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(uuid.description, forKey: .uuid)
        try c.encode(isPrimary, forKey: .isPrimary)
        try c.encode(startHandle.rawValue, forKey: .startHandle)
        try c.encode(endHandle.rawValue, forKey: .endHandle)
        try c.encodeIfPresent(includedServiceHandles?.map(\.rawValue), forKey: .includedServiceHandles)
        try c.encodeIfPresent(characteristics, forKey: .characteristics)
    }
}
