import CBlueZ
import HCI

/// The kind of LE address, as the kernel's `bdaddr_type` spells it in
/// `sockaddr_l2` (which differs from HCI's numbering).
public enum LEAddressType: UInt8, Hashable, Sendable, CustomStringConvertible {
    case `public` = 1  // BDADDR_LE_PUBLIC
    case random = 2    // BDADDR_LE_RANDOM

    /// The socket address type for an address type from an HCI LE event;
    /// resolved identities connect by their identity address.
    public init(_ type: BluetoothAddressType) {
        self = type.isPublic ? .public : .random
    }

    /// The address type as HCI LE commands take it (Own_Address_Type: 0 public, 1 random).
    public var hciValue: UInt8 { self == .public ? 0 : 1 }

    public var description: String { self == .public ? "public" : "random" }
}
