/// An HCI error code that ended a link (Core Vol 1 Part F).
public struct HCIDisconnectReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let authenticationFailure = HCIDisconnectReason(rawValue: 0x05)
    public static let connectionTimeout = HCIDisconnectReason(rawValue: 0x08)
    public static let remoteUserTerminated = HCIDisconnectReason(rawValue: 0x13)
    public static let localHostTerminated = HCIDisconnectReason(rawValue: 0x16)
    public static let connectionFailedToBeEstablished = HCIDisconnectReason(rawValue: 0x3E)

    public var description: String {
        switch self {
        case .authenticationFailure: return "Authentication Failure (0x05)"
        case .connectionTimeout: return "Connection Timeout (0x08)"
        case .remoteUserTerminated: return "Remote User Terminated Connection (0x13)"
        case .localHostTerminated: return "Connection Terminated by Local Host (0x16)"
        case .connectionFailedToBeEstablished: return "Connection Failed to be Established (0x3E)"
        default: return "HCI error 0x" + String(rawValue, radix: 16)
        }
    }
}
