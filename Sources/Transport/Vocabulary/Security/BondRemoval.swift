/// What forgetting a bond did beyond the store, on the transport's own Security Manager.
public enum BondRemoval: Hashable, Sendable, CustomStringConvertible {
    /// The transport pairs with the store's keys alone (the userland host, the memory
    /// radio): nothing else held them.
    case storeOnly
    /// The kernel forgot its keys too (mgmt Unpair Device); false when it held none.
    case kernel(removed: Bool)
    /// bluetoothd owns the kernel's keys here and keeps its own copy: it forgets the
    /// device only when asked (`bluetoothctl remove ADDR`).
    case keptByBluetoothd
    /// The kernel could not be asked (no adapter, no CAP_NET_ADMIN): why.
    case kernelUnreachable(String)

    /// Whether no copy of the keys can be left outside the store: false when bluetoothd
    /// keeps its own or the kernel could not be asked.
    public var isComplete: Bool {
        switch self {
        case .storeOnly, .kernel: true
        case .keptByBluetoothd, .kernelUnreachable: false
        }
    }

    public var description: String {
        switch self {
        case .storeOnly: "the store held the only copy"
        case .kernel(let removed): removed ? "the kernel forgot its keys too" : "the kernel held no keys for it"
        case .keptByBluetoothd: "bluetoothd keeps its own copy: run bluetoothctl remove with the address to forget it there"
        case .kernelUnreachable(let why): "the kernel's copy could not be removed: \(why)"
        }
    }
}
