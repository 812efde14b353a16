import CBlueZ
import HCI

extension BluetoothAddress {
    /// 00:00:00:00:00:00 (`BDADDR_ANY`), which the kernel reads as "any local adapter".
    public static let any = BluetoothAddress(0, 0, 0, 0, 0, 0)

    /// The kernel's `bdaddr_t`, least-significant byte first like the wire.
    init(_ raw: bdaddr_t) {
        let b = raw.b
        self.init(b.5, b.4, b.3, b.2, b.1, b.0)
    }

    var bdaddr: bdaddr_t {
        bdaddr_t(b: (bytes.5, bytes.4, bytes.3, bytes.2, bytes.1, bytes.0))
    }
}
