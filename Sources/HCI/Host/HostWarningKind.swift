extension HostWarning {
    /// What sort of input a warning is about, without its particulars: the unit in which
    /// the host counts warnings and bounds how many it delivers.
    public enum Kind: Int, CaseIterable, Hashable, Sendable, CustomStringConvertible {
        case malformedEvent, malformedACL, aclForUnknownHandle, completedPacketsMismatch, l2capDropped
        case unknownChannel, unexpectedCommandCompletion, unexpectedPacketType, duplicateConnection
        case eventForUnknownHandle, undeliveredAtDisconnect

        public var description: String {
            switch self {
            case .malformedEvent: "malformed event"
            case .malformedACL: "malformed ACL packet"
            case .aclForUnknownHandle: "ACL for unknown handle"
            case .completedPacketsMismatch: "Number Of Completed Packets mismatch"
            case .l2capDropped: "dropped L2CAP data"
            case .unknownChannel: "L2CAP frame for closed channel"
            case .unexpectedCommandCompletion: "unexpected command completion"
            case .unexpectedPacketType: "unexpected packet type"
            case .duplicateConnection: "duplicate connection"
            case .eventForUnknownHandle: "event for unknown handle"
            case .undeliveredAtDisconnect: "data undelivered at disconnect"
            }
        }
    }

    /// The warning's kind; nil for ``suppressed(_:count:)``, which summarises others.
    public var kind: Kind? {
        switch self {
        case .malformedEvent: .malformedEvent
        case .malformedACL: .malformedACL
        case .aclForUnknownHandle: .aclForUnknownHandle
        case .completedPacketsMismatch: .completedPacketsMismatch
        case .l2capDropped: .l2capDropped
        case .unknownChannel: .unknownChannel
        case .unexpectedCommandCompletion: .unexpectedCommandCompletion
        case .unexpectedPacketType: .unexpectedPacketType
        case .duplicateConnection: .duplicateConnection
        case .eventForUnknownHandle: .eventForUnknownHandle
        case .undeliveredAtDisconnect: .undeliveredAtDisconnect
        case .suppressed: nil
        }
    }
}
