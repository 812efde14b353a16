/// Whether a subscription asks for notifications or indications (CCCD bit 0 or bit 1).
public enum NotificationKind: String, Hashable, Sendable, Codable {
    case notification
    case indication

    /// The Client Characteristic Configuration value that enables this kind.
    public var clientConfiguration: UInt16 { self == .notification ? 0x0001 : 0x0002 }
}

/// One characteristic a central has subscribed to: enough to write its CCCD again after
/// a reconnect, and to find it again by UUID when the database changed.
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
    public var kind: NotificationKind

    /// A subscription as the lifecycle and the store keep it.
    public init(serviceUUID: BluetoothUUID, characteristicUUID: BluetoothUUID, valueHandle: AttributeHandle,
                configurationHandle: AttributeHandle, kind: NotificationKind) {
        self.serviceUUID = serviceUUID
        self.characteristicUUID = characteristicUUID
        self.valueHandle = valueHandle
        self.configurationHandle = configurationHandle
        self.kind = kind
    }

    /// The same subscription in a freshly discovered database: the first characteristic
    /// with the same service and characteristic UUIDs that has a CCCD. Nil when it is gone.
    public func relocated(in services: [Service]) -> Subscription? {
        for service in services where service.uuid == serviceUUID {
            for characteristic in service.characteristics ?? [] where characteristic.uuid == characteristicUUID {
                guard let cccd = characteristic.clientConfigurationDescriptor else { continue }
                var moved = self
                moved.valueHandle = characteristic.valueHandle
                moved.configurationHandle = cccd.handle
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
        kind = try c.decode(NotificationKind.self, forKey: .kind)
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
