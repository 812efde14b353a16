/// The Packet_Boundary_Flag of an HCI ACL data packet (Vol 4 Part E §5.4.2).
public enum ACLPacketBoundary: UInt8, Hashable, Sendable, CustomStringConvertible {
    /// First fragment of a higher-layer message, non-automatically-flushable (host to controller).
    case firstNonFlushable = 0b00
    /// A continuing fragment.
    case continuing = 0b01
    /// First fragment, automatically flushable; controllers use it towards the host.
    case firstFlushable = 0b10
    /// A complete L2CAP PDU, automatically flushable (BR/EDR only; treated as a first fragment).
    case complete = 0b11

    /// True for every flag that starts a new L2CAP PDU.
    @inlinable public var isStart: Bool { self != .continuing }

    public var description: String {
        switch self {
        case .firstNonFlushable: return "first (non-flushable)"
        case .continuing: return "continuing"
        case .firstFlushable: return "first (flushable)"
        case .complete: return "complete"
        }
    }
}
