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
    /// The peripheral did not answer `request` within the ATT transaction timeout
    /// (30 s, Vol 3 Part F §3.3.3). The spec then forbids any further ATT PDU on the
    /// bearer, so the link was closed with it; nil when the request is not known.
    case attTimeout(request: ATTOpcode?)
    /// The peripheral is not connected.
    case notConnected
    /// The operation was cancelled (cancelConnection, task cancellation, manager closed).
    case cancelled
    /// The manager is not powered on, and why.
    case unavailable(ManagerStateCause)
    /// A value is longer than the procedure can carry.
    case invalidValueLength(Int, maximum: Int)
    /// The peer broke the protocol (malformed or unexpected PDUs); the text names the
    /// PDU, with its bytes, and what was expected instead.
    case protocolError(String)
    /// The link's security cannot be raised on this transport; the text names what is
    /// missing.
    case securityUnavailable(String)
    /// Raising the link's security (pairing, encryption) was tried and failed.
    case securityFailed(String)
    /// The controller did not answer in time (an HCI_Reset, a power change); the text
    /// says what it was asked. One that ignores a reset is left unusable.
    case controllerTimeout(String)

    public var description: String {
        switch self {
        case .connectionTimeout: "connection timed out"
        case .peripheralDisconnected(let reason): "peripheral disconnected: \(reason)" + Self.hint(reason.hint(.disconnection))
        case .connectionFailed(let reason): "connection failed: \(reason)" + Self.hint(reason.hint(.connectionAttempt))
        case .operationNotSupported(let what): "operation not supported: \(what)"
        case .attributeNotFound(let what): "attribute not found: \(what)"
        case .att(let code): "ATT error: \(code)" + Self.hint(code.securityRequirement.map { "\($0); \(Self.securityFix(code))" })
        case .attTimeout(let request):
            "ATT transaction timeout: the peripheral did not answer \(request?.name ?? "a request") within 30 s "
                + "(Vol 3 Part F §3.3.3), so the ATT bearer was closed and the link with it"
        case .notConnected: "peripheral not connected"
        case .cancelled: "cancelled"
        case .unavailable(let cause): cause.description
        case let .invalidValueLength(length, maximum): "value of \(length) bytes exceeds the maximum of \(maximum)"
        case .protocolError(let what): "protocol violation: \(what)"
        case .securityUnavailable(let what): "link security cannot be raised: \(what)"
        case .securityFailed(let what): "raising link security failed: \(what)"
        case .controllerTimeout(let what): "the controller did not answer in time: \(what)"
        }
    }
}

extension AttuneError {
    private static func hint(_ text: String?) -> String { text.map { "; \($0)" } ?? "" }

    /// How to get the security a bare ATT security error asks for. Where a transport
    /// tried to raise security and could not, the error is ``securityUnavailable(_:)``
    /// or ``securityFailed(_:)`` instead, and says what failed.
    private static func securityFix(_ code: ATTErrorCode) -> String {
        switch code {
        case .insufficientAuthorization:
            "authorization is granted by the peripheral's application; pairing does not grant it"
        case .encryptionKeySizeTooShort:
            "the bond's key is too short: remove the bond and pair again (bluetoothctl remove ADDRESS, "
                + "then bluetoothctl pair ADDRESS) with the kernel transport"
        default:
            "pair with the peripheral (bluetoothctl pair ADDRESS) and use the kernel transport, which encrypts with the bond"
        }
    }

    /// The same security error with what led to it in front, so one message says both.
    package func adding(_ context: String) -> AttuneError {
        switch self {
        case .securityUnavailable(let why): .securityUnavailable("\(context); \(why)")
        case .securityFailed(let why): .securityFailed("\(context); \(why)")
        default: self
        }
    }
}
