import ATT

/// Errors of the public API, in the spirit of `CBError` and `CBATTError`.
public enum AttuneError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The connect attempt did not complete within its timeout (30 s by default).
    case connectionTimeout
    /// The link went down while the operation was pending.
    case peripheralDisconnected(DisconnectReason)
    /// The link could not be established.
    case connectionFailed(DisconnectReason)
    /// The peripheral or this transport cannot do that (e.g. notify on a characteristic
    /// without the notify or indicate property).
    case operationNotSupported(String)
    /// No attribute matches: unknown characteristic, missing CCCD, stale handle.
    case attributeNotFound(String)
    /// The peripheral answered with an ATT Error Response.
    case att(ATTErrorCode)
    /// The peripheral is not connected.
    case notConnected
    /// The operation was cancelled (cancelConnection, task cancellation, manager closed).
    case cancelled
    /// The manager is not powered on, and why.
    case unavailable(ManagerStateCause)
    /// A value is longer than the procedure can carry.
    case invalidValueLength(Int, maximum: Int)
    /// The peer broke the protocol (malformed or unexpected PDUs); the text says how.
    case protocolError(String)
    /// The link's security cannot be raised on this transport; the text names what is
    /// missing.
    case securityUnavailable(String)
    /// Raising the link's security (pairing, encryption) was tried and failed.
    case securityFailed(String)

    public var description: String {
        switch self {
        case .connectionTimeout: "connection timed out"
        case .peripheralDisconnected(let reason): "peripheral disconnected: \(reason)"
        case .connectionFailed(let reason): "connection failed: \(reason)"
        case .operationNotSupported(let what): "operation not supported: \(what)"
        case .attributeNotFound(let what): "attribute not found: \(what)"
        case .att(let code): "ATT error: \(code)"
        case .notConnected: "peripheral not connected"
        case .cancelled: "cancelled"
        case .unavailable(let cause): cause.description
        case let .invalidValueLength(length, maximum): "value of \(length) bytes exceeds the maximum of \(maximum)"
        case .protocolError(let what): "protocol error: \(what)"
        case .securityUnavailable(let what): "link security cannot be raised: \(what)"
        case .securityFailed(let what): "raising link security failed: \(what)"
        }
    }
}

extension AttuneError {
    /// The same security error with what led to it in front, so one message says both.
    package func adding(_ context: String) -> AttuneError {
        switch self {
        case .securityUnavailable(let why): .securityUnavailable("\(context); \(why)")
        case .securityFailed(let why): .securityFailed("\(context); \(why)")
        default: self
        }
    }
}
