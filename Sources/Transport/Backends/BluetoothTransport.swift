import HCI

/// Which controller a manager drives, like Bumble's transport names. (Named so as not
/// to collide with the `Transport` module and its namespace enum.)
public enum BluetoothTransport: Sendable {
    /// The kernel's Bluetooth stack: an HCI socket for scanning and advertising, L2CAP
    /// LE sockets (CID 4) for ATT. The default adapter is `hci0`.
    case kernel(String = "hci0")
    /// Attune's own userland host over an H4 byte stream.
    case h4(H4Endpoint)
    /// Attune's own userland host on the kernel's HCI user channel (the adapter must be
    /// down and not used by bluetoothd).
    case userChannel(String = "hci0")
    /// An in-process radio shared by managers of the same ``MemoryRadio``: no hardware,
    /// every byte still goes through the ATT and GATT engines.
    case memory(MemoryRadio)

    /// The default transport: the first kernel adapter.
    public static let `default` = BluetoothTransport.kernel()

    public var description: String {
        switch self {
        case .kernel(let name): name
        case .h4(let endpoint): endpoint.description
        case .userChannel(let name): "user:" + name
        case .memory: "memory"
        }
    }
}
