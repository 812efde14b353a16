/// A service as the ``PeripheralManager`` serves it, with the handles the database gave
/// it: what `add(_:)` returns and what ``PeripheralManager/updateValue(_:for:onSubscribedCentrals:)``
/// takes.
public struct PublishedService: Hashable, Sendable, Identifiable {
    public var uuid: BluetoothUUID
    public var isPrimary: Bool
    public var startHandle: AttributeHandle
    public var endHandle: AttributeHandle
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
    public var properties: CharacteristicProperties
    public var valueHandle: AttributeHandle
    /// The CCCD, when the characteristic notifies or indicates.
    public var clientConfigurationHandle: AttributeHandle?

    public var id: AttributeHandle { valueHandle }
}
