import ATT
import HCI

/// Why a connection ended or never came up. Every disconnect carries one, including
/// those that happen while a reconnect is pending.
public enum DisconnectReason: Hashable, Sendable, CustomStringConvertible {
    /// The controller's reason: Disconnection Complete, or the status of a failed
    /// LE Connection Complete.
    case hci(HCIStatus)
    /// The ATT bearer closed itself (transaction timeout, protocol violation).
    case attBearerClosed(ATTBearerCloseReason)
    /// The connect attempt did not complete within its timeout.
    case connectionTimeout
    /// The application cancelled the connection.
    case cancelled
    /// The transport under the link failed (socket error, H4 stream closed).
    case transport(String)

    public var description: String {
        switch self {
        case .hci(let status): "\(Self.name(of: status)) (HCI \(status))"
        case .attBearerClosed(let reason): "ATT bearer closed: \(reason)"
        case .connectionTimeout: "connection attempt timed out"
        case .cancelled: "cancelled by the application"
        case .transport(let what): "transport failed: \(what)"
        }
    }

    /// Names of the reasons links end with most (Vol 1 Part F §1.3).
    private static func name(of status: HCIStatus) -> String {
        switch status.rawValue {
        case 0x05: "authentication failure"
        case 0x06: "PIN or key missing"
        case 0x08: "connection timeout"
        case 0x13: "remote user terminated connection"
        case 0x14: "remote device terminated connection due to low resources"
        case 0x15: "remote device terminated connection due to power off"
        case 0x16: "connection terminated by local host"
        case 0x1A: "unsupported remote feature"
        case 0x22: "LL response timeout"
        case 0x28: "instant passed"
        case 0x3B: "unacceptable connection parameters"
        case 0x3D: "connection terminated due to MIC failure"
        case 0x3E: "connection failed to be established"
        default: "HCI error"
        }
    }
}
