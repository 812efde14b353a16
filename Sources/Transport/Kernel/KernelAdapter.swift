import CBlueZ
import Glibc

/// A Bluetooth controller the kernel knows (`hciN`), as libbluetooth's
/// `hci_devinfo` reports it.
public struct KernelAdapter: Hashable, Sendable, CustomStringConvertible {
    /// The device index: 0 for hci0.
    public var index: UInt16
    /// The kernel's name for it, such as `"hci0"`.
    public var name: String
    /// The controller's public address.
    public var address: BluetoothAddress
    /// Whether the adapter is up (powered).
    public var isUp: Bool
    /// Whether the controller supports Bluetooth Low Energy (LMP feature "LE Supported (Controller)").
    public var supportsLowEnergy: Bool

    public init(index: UInt16, name: String, address: BluetoothAddress, isUp: Bool, supportsLowEnergy: Bool) {
        self.index = index
        self.name = name
        self.address = address
        self.isUp = isUp
        self.supportsLowEnergy = supportsLowEnergy
    }

    /// Every primary controller, in index order.
    ///
    /// Throws ``KernelTransportError/Kind/unsupported`` when the kernel has no
    /// Bluetooth (`socket(AF_BLUETOOTH)` fails with `EAFNOSUPPORT`).
    public static func list() throws -> [KernelAdapter] {
        let probe = Glibc.socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        guard probe >= 0 else { throw KernelTransportError.current("socket(AF_BLUETOOTH, HCI)") }
        Glibc.close(probe)
        var adapters: [KernelAdapter] = []
        for index in 0..<Int32(HCI_MAX_DEV) {
            var info = hci_dev_info()
            guard hci_devinfo(index, &info) == 0 else {
                if errno == ENODEV { continue }
                if errno == EPERM || errno == EACCES { throw KernelTransportError.current("hci_devinfo") }
                continue
            }
            // Bits 4–5 of the type byte: 0 is a primary controller, 1 an AMP.
            guard (info.type >> 4) & 0x03 == UInt8(HCI_PRIMARY) else { continue }
            adapters.append(KernelAdapter(info))
        }
        return adapters
    }

    /// The adapter with device index `index`, or nil.
    public static func adapter(index: UInt16) throws -> KernelAdapter? {
        try list().first { $0.index == index }
    }

    init(_ info: hci_dev_info) {
        var info = info
        let name = withUnsafeBytes(of: &info.name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let b = info.bdaddr.b
        let up = info.flags & (1 << UInt32(HCI_UP)) != 0
        let features = info.features
        self.init(index: info.dev_id, name: name,
                  address: BluetoothAddress(littleEndianBytes: [b.0, b.1, b.2, b.3, b.4, b.5])!,
                  isUp: up, supportsLowEnergy: features.4 & UInt8(LMP_LE) != 0)
    }

    public var description: String {
        "\(name) \(address) \(isUp ? "up" : "down")\(supportsLowEnergy ? " LE" : "")"
    }
}
