import HCI

/// Opcodes of the Linux Bluetooth monitor channel, as btmon stores them in btsnoop 2001
/// flags and pcap link type 254 headers.
public enum MonitorOpcode {
    public static let newIndex: UInt16 = 0
    public static let deleteIndex: UInt16 = 1
    public static let commandPacket: UInt16 = 2
    public static let eventPacket: UInt16 = 3
    public static let aclTxPacket: UInt16 = 4
    public static let aclRxPacket: UInt16 = 5
    public static let scoTxPacket: UInt16 = 6
    public static let scoRxPacket: UInt16 = 7
    public static let openIndex: UInt16 = 8
    public static let closeIndex: UInt16 = 9
    public static let indexInfo: UInt16 = 10
    public static let vendorDiagnostic: UInt16 = 11
    public static let systemNote: UInt16 = 12
    public static let userLogging: UInt16 = 13
    public static let isoTxPacket: UInt16 = 18
    public static let isoRxPacket: UInt16 = 19

    /// The HCI packet a monitor opcode carries, or nil for the non-HCI opcodes.
    @inlinable
    public static func packet(for opcode: UInt16) -> (H4PacketType, CaptureDirection)? {
        switch opcode {
        case commandPacket: return (.command, .sent)
        case eventPacket: return (.event, .received)
        case aclTxPacket: return (.aclData, .sent)
        case aclRxPacket: return (.aclData, .received)
        case scoTxPacket: return (.synchronousData, .sent)
        case scoRxPacket: return (.synchronousData, .received)
        case isoTxPacket: return (.isoData, .sent)
        case isoRxPacket: return (.isoData, .received)
        default: return nil
        }
    }

    /// The monitor opcode for an HCI packet travelling in a direction.
    @inlinable
    public static func opcode(for type: H4PacketType, direction: CaptureDirection) -> UInt16 {
        let sent = direction == .sent
        switch type {
        case .command: return commandPacket
        case .event: return eventPacket
        case .aclData: return sent ? aclTxPacket : aclRxPacket
        case .synchronousData: return sent ? scoTxPacket : scoRxPacket
        case .isoData: return sent ? isoTxPacket : isoRxPacket
        }
    }
}
