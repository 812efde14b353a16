import Foundation
import HCI

/// Stable identifiers for peripherals, like `CBPeripheral.identifier`.
///
/// The UUID is derived from the address and its type (an RFC 9562 version 8 UUID whose
/// last six bytes are the address), so the same device gets the same identifier in every
/// process without a lookup, and the address can be recovered from it.
public enum PeripheralIdentifier {
    /// The identifier of the device at `address`.
    public static func make(address: BluetoothAddress, type: BluetoothAddressType) -> UUID {
        let a = address.bytes
        return UUID(uuid: (0x61, 0x74, 0x74, 0x75, 0x6E, 0x65, 0x80, type.rawValue,
                           0x80, 0x00, a.0, a.1, a.2, a.3, a.4, a.5))
    }

    /// The address and type inside an identifier made by ``make(address:type:)``.
    public static func address(of identifier: UUID) -> (BluetoothAddress, BluetoothAddressType)? {
        let u = identifier.uuid
        guard [u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.8, u.9] == [0x61, 0x74, 0x74, 0x75, 0x6E, 0x65, 0x80, 0x80, 0],
              let type = BluetoothAddressType(rawValue: u.7) else { return nil }
        return (BluetoothAddress(u.10, u.11, u.12, u.13, u.14, u.15), type)
    }
}
