import HCI

/// A remote device as the kernel's management channel names it: the adapter that
/// reported it, its address and the mgmt Address_Type.
public struct KernelPeer: Hashable, Sendable, CustomStringConvertible {
    /// The mgmt Address_Type values (BlueZ doc/mgmt-api.txt).
    public enum AddressType: UInt8, Hashable, Sendable, CustomStringConvertible {
        case bredr = 0
        case lePublic = 1
        case leRandom = 2

        public var description: String {
            switch self {
            case .bredr: "BR/EDR"
            case .lePublic: "LE public"
            case .leRandom: "LE random"
            }
        }
    }

    /// `hci<adapterIndex>`.
    public var adapterIndex: UInt16
    public var address: BluetoothAddress
    public var addressType: AddressType

    public init(adapterIndex: UInt16, address: BluetoothAddress, addressType: AddressType) {
        self.adapterIndex = adapterIndex
        self.address = address
        self.addressType = addressType
    }

    /// Address and Address_Type as mgmt commands carry them (7 octets).
    var encodedAddress: [UInt8] { address.littleEndianBytes + [addressType.rawValue] }

    public var description: String { "\(address) (\(addressType)) on hci\(adapterIndex)" }
}
