extension AttuneError {
    /// The public error for a failed client procedure.
    init(_ error: GATTClientError) {
        switch error {
        case let .att(code, _, _): self = .att(code)
        case .malformedPDU, .protocolViolation: self = .protocolError(error.description)
        case .transactionTimeout: self = .peripheralDisconnected(.attBearerClosed(.local("ATT transaction timeout")))
        case .cancelled: self = .cancelled
        case .bearerClosed: self = .notConnected
        case .invalidArgument(let why): self = .operationNotSupported(why)
        }
    }
}
