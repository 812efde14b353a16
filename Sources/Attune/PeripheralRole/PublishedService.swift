/// A service as the ``PeripheralManager`` serves it, with the handles the database gave
/// it: what `add(_:)` returns and what ``PeripheralManager/updateValue(_:for:onSubscribedCentrals:)``
/// takes.
public struct PublishedService: Hashable, Sendable, Identifiable {
    /// The type.
    public var uuid: BluetoothUUID
    /// Primary or secondary.
    public var isPrimary: Bool
    /// The service declaration's handle.
    public var startHandle: AttributeHandle
    /// The last handle of the service.
    public var endHandle: AttributeHandle
    /// Its characteristics, in handle order.
    public var characteristics: [PublishedCharacteristic]

    public var id: AttributeHandle { startHandle }

    /// The first characteristic with this UUID.
    public subscript(uuid: BluetoothUUID) -> PublishedCharacteristic? {
        characteristics.first { $0.uuid == uuid }
    }
}

/// A characteristic of a ``PublishedService``.
public struct PublishedCharacteristic: Hashable, Sendable, Identifiable {
    public var uuid: BluetoothUUID
    /// What the declaration allows.
    public var properties: CharacteristicProperties
    /// Where the value lives: what centrals read, write and subscribe to.
    public var valueHandle: AttributeHandle
    /// The CCCD, when the characteristic notifies or indicates.
    public var clientConfigurationHandle: AttributeHandle?

    public var id: AttributeHandle { valueHandle }
}
