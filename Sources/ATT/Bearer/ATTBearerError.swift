/// Why the bearer refused to send a PDU.
public enum ATTBearerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bearer is closed (protocol violation, transaction timeout, or link loss):
    /// nothing more may be sent on it.
    case closed(ATTBearerCloseReason)
    /// One of our requests is still waiting for its response (Vol 3 Part F §3.3.2).
    case requestOutstanding(ATTOpcode)
    /// One of our indications is still waiting for its confirmation.
    case indicationOutstanding
    /// A response was offered but no request of the peer is waiting for one.
    case noRequestToAnswer
    /// The response's opcode does not answer the pending request.
    case wrongResponse(pending: ATTOpcode, offered: ATTOpcode)
    /// The PDU is not of the kind this method sends (e.g. a response through `sendRequest`).
    case wrongKind(ATTOpcode)
    /// The PDU does not fit in the current ATT_MTU.
    case encoding(ATTEncodingError)

    public var description: String {
        switch self {
        case .closed(let reason): "bearer closed: \(reason)"
        case .requestOutstanding(let op): "a \(op.name) is still outstanding"
        case .indicationOutstanding: "an indication is still awaiting its confirmation"
        case .noRequestToAnswer: "no request of the peer is waiting for a response"
        case let .wrongResponse(pending, offered): "\(offered.name) does not answer \(pending.name)"
        case .wrongKind(let op): "\(op.name) cannot be sent this way"
        case .encoding(let e): e.description
        }
    }
}

/// Why a bearer closed.
public enum ATTBearerCloseReason: Hashable, Sendable, CustomStringConvertible {
    /// Our request got no response within the transaction timeout (Vol 3 Part F §3.3.3).
    case requestTimeout(ATTOpcode)
    /// Our indication got no confirmation within the transaction timeout.
    case indicationTimeout
    /// The peer sent a request while its previous request was still unanswered.
    case requestWhileRequestPending(ATTOpcode)
    /// The peer sent a confirmation with no indication outstanding.
    case unexpectedConfirmation
    /// The peer sent a Handle Value Indication before its previous one was confirmed (Vol
    /// 3 Part F §3.4.7.2): an indication flood. The transport, which sees when our
    /// confirmation leaves, finds it and ends the link.
    case indicationBeforeConfirmation
    /// The peer sent a response while none of our requests was outstanding.
    case unexpectedResponse(ATTOpcode)
    /// The owner closed the bearer (link lost, application request).
    case local(String)

    public var description: String {
        switch self {
        case .requestTimeout(let op): "no response to \(op.name) within the transaction timeout"
        case .indicationTimeout: "no confirmation of an indication within the transaction timeout"
        case .requestWhileRequestPending(let op): "protocol violation: \(op.name) while a request was pending"
        case .unexpectedConfirmation: "protocol violation: confirmation with no indication outstanding"
        case .indicationBeforeConfirmation:
            "protocol violation: indication flood (a Handle Value Indication before the previous one was confirmed)"
        case .unexpectedResponse(let op): "protocol violation: \(op.name) with no request outstanding"
        case .local(let why): why
        }
    }

    /// True for the two transaction timeouts.
    public var isTimeout: Bool {
        switch self {
        case .requestTimeout, .indicationTimeout: true
        default: false
        }
    }
}
