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
        case .hci(let status): status.namedDescription
        case .attBearerClosed(let reason): "ATT bearer closed: \(reason)"
        case .connectionTimeout: "connection attempt timed out"
        case .cancelled: "cancelled by the application"
        case .transport(let what): "transport failed: \(what)"
        }
    }

    /// What usually causes a controller's reason in `context`, and the fix; nil for the
    /// reasons that already say everything.
    public func hint(_ context: HCIStatusContext) -> String? {
        if case .hci(let status) = self { return status.hint(context) }
        return nil
    }
}
