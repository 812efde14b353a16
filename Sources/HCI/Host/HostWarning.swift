/// Controller or peer input the host discarded without stopping. Each says what was
/// dropped and why, so hostile or broken input is visible instead of silent.
public enum HostWarning: Hashable, Sendable, CustomStringConvertible {
    /// An event that could not be decoded.
    case malformedEvent(HCIDecodingError)
    /// An ACL packet that could not be decoded.
    case malformedACL(HCIDecodingError)
    /// ACL data for a handle with no connection.
    case aclForUnknownHandle(UInt16)
    /// Number Of Completed Packets named a handle with no connection, or more packets than were in flight.
    case completedPacketsMismatch(handle: UInt16, reported: UInt16, inFlight: Int)
    /// ACL fragments that did not make a valid L2CAP PDU.
    case l2capDropped(handle: UInt16, String)
    /// An L2CAP frame on a channel nobody has open.
    case unknownChannel(handle: UInt16, channel: L2CAPChannelID)
    /// A Command Complete or Command Status for no command in flight.
    case unexpectedCommandCompletion(HCIOpcode)
    /// A packet type the host does not use (SCO, ISO, or a command from the controller).
    case unexpectedPacketType(UInt8)
    /// LE Connection Complete for a handle that is already connected; ignored.
    case duplicateConnection(UInt16)
    /// A connection event for a handle the host does not know.
    case eventForUnknownHandle(String, UInt16)
    /// A link ended with ACL data of ours not delivered: `unsent` packets never handed to
    /// the controller, `unacknowledged` handed over but not reported completed.
    case undeliveredAtDisconnect(handle: UInt16, unsent: Int, unacknowledged: Int)
    /// `count` more warnings of `kind` arrived in the last window and were counted but
    /// not delivered one by one (see ``HCIHost/warningCounts``).
    case suppressed(Kind, count: Int)

    public var description: String {
        switch self {
        case .malformedEvent(let error): "dropped malformed HCI event: \(error)"
        case .malformedACL(let error): "dropped malformed ACL packet: \(error)"
        case .aclForUnknownHandle(let handle): "dropped ACL data for unknown handle 0x\(String(handle, radix: 16))"
        case .completedPacketsMismatch(let handle, let reported, let inFlight):
            "Number Of Completed Packets reports \(reported) for handle 0x\(String(handle, radix: 16)) with \(inFlight) in flight"
        case .l2capDropped(let handle, let why): "dropped L2CAP data on handle 0x\(String(handle, radix: 16)): \(why)"
        case .unknownChannel(let handle, let channel): "dropped L2CAP frame for closed channel \(channel) on handle 0x\(String(handle, radix: 16))"
        case .unexpectedCommandCompletion(let opcode): "completion for command \(opcode), which is not in flight"
        case .unexpectedPacketType(let type): "dropped H4 packet of unexpected type 0x\(String(type, radix: 16))"
        case .duplicateConnection(let handle): "LE Connection Complete for handle 0x\(String(handle, radix: 16)), which is already connected"
        case .eventForUnknownHandle(let event, let handle): "\(event) for unknown handle 0x\(String(handle, radix: 16))"
        case .undeliveredAtDisconnect(let handle, let unsent, let unacknowledged):
            "handle 0x\(String(handle, radix: 16)) disconnected with \(unsent) ACL packets unsent and \(unacknowledged) not completed"
        case .suppressed(let kind, let count): "\(count) more \(kind) warnings suppressed"
        }
    }
}
