import ATT

/// One characteristic a client has subscribed to: enough to write its CCCD again on the
/// next link, and to find it again by UUID when the server's database changed.
///
/// The client engine (``GATTClient``) holds these in its subscription table while a link
/// is up; the owner of the engine keeps them between links and hands them back through
/// ``GATTClient/start(bearer:restoring:at:into:)``.
public struct Subscription: Hashable, Sendable, Codable {
    /// The service holding the characteristic, to find it again after a database change.
    public var serviceUUID: BluetoothUUID
    /// The characteristic subscribed to.
    public var characteristicUUID: BluetoothUUID
    /// Where its values come from.
    public var valueHandle: AttributeHandle
    /// The CCCD's handle.
    public var configurationHandle: AttributeHandle
    /// Notifications or indications.
    public var kind: SubscriptionKind

    /// A subscription as an engine and a store keep it.
    public init(serviceUUID: BluetoothUUID, characteristicUUID: BluetoothUUID, valueHandle: AttributeHandle,
                configurationHandle: AttributeHandle, kind: SubscriptionKind) {
        self.serviceUUID = serviceUUID
        self.characteristicUUID = characteristicUUID
        self.valueHandle = valueHandle
        self.configurationHandle = configurationHandle
        self.kind = kind
    }

    /// The same subscription in a freshly discovered database: the first characteristic
    /// with the same service and characteristic UUIDs that has a CCCD. Nil when it is gone.
    public func relocated(in database: DiscoveredDatabase) -> Subscription? {
        for service in database.services where service.uuid == serviceUUID {
            for characteristic in service.characteristics where characteristic.uuid == characteristicUUID {
                guard let cccd = characteristic.clientConfigurationHandle else { continue }
                var moved = self
                moved.valueHandle = characteristic.valueHandle
                moved.configurationHandle = cccd
                return moved
            }
        }
        return nil
    }

    private enum CodingKeys: String, CodingKey {
        case serviceUUID, characteristicUUID, valueHandle, configurationHandle, kind
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        serviceUUID = try c.decodeBluetoothUUID(forKey: .serviceUUID)
        characteristicUUID = try c.decodeBluetoothUUID(forKey: .characteristicUUID)
        valueHandle = AttributeHandle(try c.decode(UInt16.self, forKey: .valueHandle))
        configurationHandle = AttributeHandle(try c.decode(UInt16.self, forKey: .configurationHandle))
        kind = try c.decode(SubscriptionKind.self, forKey: .kind)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(serviceUUID.description, forKey: .serviceUUID)
        try c.encode(characteristicUUID.description, forKey: .characteristicUUID)
        try c.encode(valueHandle.rawValue, forKey: .valueHandle)
        try c.encode(configurationHandle.rawValue, forKey: .configurationHandle)
        try c.encode(kind, forKey: .kind)
    }
}
