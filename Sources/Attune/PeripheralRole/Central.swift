import Foundation

/// A central connected to our ``PeripheralManager``, like `CBCentral`.
public struct Central: Hashable, Sendable, Identifiable, CustomStringConvertible {
    public var identifier: UUID
    public var address: BluetoothAddress
    public var addressType: BluetoothAddressType
    /// The GATT server's handle for this connection.
    public var connection: ConnectionID

    public var id: UUID { identifier }

    init(address: BluetoothAddress, type: BluetoothAddressType, connection: ConnectionID) {
        self.address = address
        addressType = type
        self.connection = connection
        identifier = PeripheralIdentifier.make(address: address, type: type)
    }

    public var description: String { "central \(address) (\(addressType))" }
}
