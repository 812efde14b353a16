import ATT

/// Why a client procedure failed.
public enum GATTClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server answered with an ATT Error Response.
    case att(ATTErrorCode, handle: AttributeHandle, request: ATTOpcode)
    /// The server sent bytes that are not a valid ATT PDU.
    case malformedPDU(ATTDecodingError)
    /// The server sent a valid PDU that breaks the procedure's rules.
    case protocolViolation(ProtocolViolation)
    /// No response within the ATT transaction timeout (Vol 3 Part F §3.3.3); the bearer
    /// is dead afterwards.
    case transactionTimeout
    /// The application cancelled the procedure.
    case cancelled
    /// The bearer is closed (after a timeout, or because the link went away).
    case bearerClosed
    /// The command cannot be carried out as given (for example a value longer than the
    /// ATT_MTU allows for a write without response).
    case invalidArgument(String)
    /// An attribute the client relied on is not in the server's database (any more).
    case attributeNotFound(String)

    /// The ATT error code, when the server reported one.
    public var attErrorCode: ATTErrorCode? {
        if case let .att(code, _, _) = self { return code }
        return nil
    }

    public var description: String {
        switch self {
        case let .att(code, handle, request): "\(request.name) for \(handle) failed: \(code)"
        case let .malformedPDU(e): "malformed PDU: \(e)"
        case let .protocolViolation(v): "protocol violation: \(v)"
        case .transactionTimeout: "ATT transaction timeout"
        case .cancelled: "cancelled"
        case .bearerClosed: "bearer closed"
        case let .invalidArgument(why): "invalid argument: \(why)"
        case let .attributeNotFound(what): "not found: \(what)"
        }
    }
}
