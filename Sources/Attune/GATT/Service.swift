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
    /// The service's include declarations, like `CBService.includedServices`; nil until
    /// ``Peripheral/discoverIncludedServices(_:for:)`` ran.
    public var includedServices: [IncludedService]?
    /// nil until ``Peripheral/discoverCharacteristics(_:for:)`` ran.
    public var characteristics: [Characteristic]?

    public var id: AttributeHandle { startHandle }

    /// Start handles of the included services; nil until discovered.
    public var includedServiceHandles: [AttributeHandle]? { includedServices?.map(\.startHandle) }

    /// A service value; discovery makes these, tests and caches may too.
    public init(uuid: BluetoothUUID, isPrimary: Bool = true, startHandle: AttributeHandle, endHandle: AttributeHandle,
                includedServices: [IncludedService]? = nil, characteristics: [Characteristic]? = nil) {
        self.uuid = uuid
        self.isPrimary = isPrimary
        self.startHandle = startHandle
        self.endHandle = endHandle
        self.includedServices = includedServices
        self.characteristics = characteristics
    }

    /// Whether `handle` lies within this service's group.
    public func contains(_ handle: AttributeHandle) -> Bool {
        startHandle <= handle && handle <= endHandle
    }

    /// `includedServiceHandles` is what stores written before include declarations were
    /// kept hold: start handles only. It is read, never written.
    private enum CodingKeys: String, CodingKey {
        case uuid, isPrimary, startHandle, endHandle, includedServices, includedServiceHandles, characteristics
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        uuid = try c.decodeBluetoothUUID(forKey: .uuid)
        isPrimary = try c.decode(Bool.self, forKey: .isPrimary)
        startHandle = AttributeHandle(try c.decode(UInt16.self, forKey: .startHandle))
        endHandle = AttributeHandle(try c.decode(UInt16.self, forKey: .endHandle))
        if let includes = try c.decodeIfPresent([IncludedService].self, forKey: .includedServices) {
            includedServices = includes
        } else if let legacy = try c.decodeIfPresent([UInt16].self, forKey: .includedServiceHandles), legacy.isEmpty {
            // An old record that knew the service includes nothing: that much carries over.
            includedServices = []
        } else {
            // An old record with start handles only lacks the declaration handles and
            // UUIDs; ``GATTCache`` sees to it that such a tree is discovered again.
            includedServices = nil
        }
        characteristics = try c.decodeIfPresent([Characteristic].self, forKey: .characteristics)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(uuid.description, forKey: .uuid)
        try c.encode(isPrimary, forKey: .isPrimary)
        try c.encode(startHandle.rawValue, forKey: .startHandle)
        try c.encode(endHandle.rawValue, forKey: .endHandle)
        try c.encodeIfPresent(includedServices, forKey: .includedServices)
        try c.encodeIfPresent(characteristics, forKey: .characteristics)
    }
}
