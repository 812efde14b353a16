import ATT

extension AttuneError {
    /// The public error for a failed client procedure. `closedBy` is why the bearer
    /// closed, when it has: it names the request a transaction timeout was waiting for.
    init(_ error: GATTClientError, closedBy reason: ATTBearerCloseReason? = nil) {
        switch error {
        case let .att(code, _, _): self = .att(code)
        case .malformedPDU(let e): self = .protocolError("malformed PDU: \(e)")
        case .protocolViolation(let v): self = .protocolError(v.description)
        case .transactionTimeout:
            if case .requestTimeout(let request) = reason {
                self = .attTimeout(request: request)
            } else {
                self = .attTimeout(request: nil)
            }
        case .cancelled: self = .cancelled
        case .bearerClosed: self = .notConnected
        case .invalidArgument(let why): self = .operationNotSupported(why)
        case .attributeNotFound(let what): self = .attributeNotFound(what)
        }
    }
}
