/// A capture file format and the link layer its records use.
public enum CaptureFormat: Hashable, Sendable, CustomStringConvertible {
    case btsnoop(BTSnoopDatalink)
    case pcap(PcapLinkType)
    case pcapng(PcapLinkType)

    public var description: String {
        switch self {
        case let .btsnoop(d): return "btsnoop \(d.rawValue)"
        case let .pcap(l): return "pcap \(l.rawValue)"
        case let .pcapng(l): return "pcapng \(l.rawValue)"
        }
    }
}

/// btsnoop datalink types Attune reads and writes.
public enum BTSnoopDatalink: UInt32, Hashable, Sendable, CaseIterable {
    /// HCI without an H4 indicator; flags give direction and command/event versus data.
    case hciUnencapsulated = 1001
    /// HCI UART (H4): each record starts with the packet indicator.
    case hciUART = 1002
    /// Linux monitor (btmon): flags carry controller index and monitor opcode.
    case linuxMonitor = 2001
}

/// pcap / pcapng link types Attune reads and writes.
public enum PcapLinkType: UInt32, Hashable, Sendable, CaseIterable {
    /// LINKTYPE_BLUETOOTH_HCI_H4_WITH_PHDR: 4-byte big-endian direction, then H4.
    case bluetoothHCIH4WithPHDR = 201
    /// LINKTYPE_BLUETOOTH_LINUX_MONITOR: big-endian adapter index and opcode, then payload.
    case bluetoothLinuxMonitor = 254
}
