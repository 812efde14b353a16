/// The packet indicator that precedes every HCI packet on a UART (H4) transport
/// (Core Spec 5.4, Vol 4, Part A, §2).
public enum H4PacketType: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case command = 0x01
    case aclData = 0x02
    case synchronousData = 0x03
    case event = 0x04
    case isoData = 0x05

    public var description: String {
        switch self {
        case .command: return "Command"
        case .aclData: return "ACL"
        case .synchronousData: return "SCO"
        case .event: return "Event"
        case .isoData: return "ISO"
        }
    }
}
