import Foundation

/// A central connected to our ``PeripheralManager``, like `CBCentral`.
public struct Central: Hashable, Sendable, Identifiable, CustomStringConvertible {
    /// Stable: derived from the address and its type.
    public var identifier: UUID
    /// The central's address.
    public var address: BluetoothAddress
    /// Public or random.
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
