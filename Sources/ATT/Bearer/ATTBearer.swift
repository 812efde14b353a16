/// The sequential protocol of one ATT bearer (Vol 3 Part F §3.3), sans-I/O.
///
/// One value per connection, shared by the GATT server and GATT client engines of that
/// link: bytes and time go in, events and bytes to send come out; the bearer never
/// reads a clock, owns a socket or starts a thread.
///
/// It enforces what the spec makes the bearer's business:
/// - ATT_MTU: 23 until an Exchange MTU completes, then `max(23, min(client Rx, server Rx))`,
///   applied right after the response (when we send it, or when we receive it).
/// - At most one outstanding request of ours and one outstanding indication of ours; the
///   client engine keeps its own queue, the bearer refuses a second one.
/// - Protocol violations by the peer (a request while its previous one is unanswered, a
///   confirmation with no indication outstanding, a response with no request
///   outstanding) close the bearer; nothing is answered.
/// - Unknown requests get Request Not Supported (0x06), unknown commands are ignored,
///   malformed known requests get Invalid PDU (0x04).
/// - Incoming indications are confirmed **by the bearer itself**, at once, even when no
///   one listens and even when the indication is malformed, so the peer never stalls.
/// - 30 s transaction timeout for our request and our indication; on expiry the bearer
///   closes, reports what failed, and sends nothing more.
public struct ATTBearer: Sendable {
    /// The minimum and default ATT_MTU for LE (Vol 3 Part F §3.2.8).
    public static let defaultMTU = 23

    /// Our receive MTU, offered in Exchange MTU (as client or server).
    public let rxMTU: UInt16
    /// The transaction timeout (Vol 3 Part F §3.3.3: 30 s).
    public let transactionTimeout: Duration

    /// The current ATT_MTU.
    public private(set) var mtu: Int = ATTBearer.defaultMTU
    /// Why the bearer closed, once it has.
    public private(set) var closeReason: ATTBearerCloseReason?
    /// The opcode of the peer's request we still have to answer.
    public private(set) var pendingPeerRequest: ATTOpcode?
    /// The opcode of our request still waiting for its response.
    public private(set) var outstandingRequest: ATTOpcode?
    /// Whether our indication is still waiting for its confirmation.
    public var indicationOutstanding: Bool { indicationDeadline != nil }

    private var requestDeadline: MonotonicTime?
    private var indicationDeadline: MonotonicTime?
    /// Client Rx MTU of the peer's pending Exchange MTU Request.
    private var peerClientRxMTU: UInt16?
    /// Whether the peer's Exchange MTU already set ATT_MTU. A client sends it once per
    /// link (Vol 3 Part F §3.4.2.1); a second one is answered but changes nothing, so the
    /// ATT_MTU both sides use cannot drift apart mid-link (§3.4.2.2).
    private var peerExchangedMTU = false

    /// - Parameters:
    ///   - rxMTU: our receive MTU (at least 23; larger values need L2CAP support).
    ///   - transactionTimeout: 30 s per the spec; tests may shorten it.
    public init(rxMTU: UInt16 = 512, transactionTimeout: Duration = .seconds(30)) {
        self.rxMTU = max(rxMTU, UInt16(ATTBearer.defaultMTU))
        self.transactionTimeout = transactionTimeout
    }

    /// Whether the bearer is closed.
    @inlinable public var isClosed: Bool { closeReason != nil }

    /// When ``tick(at:)`` must next be called, if anything is waiting.
    public var deadline: MonotonicTime? {
        switch (requestDeadline, indicationDeadline) {
        case let (r?, i?): min(r, i)
        case let (r?, nil): r
        case let (nil, i?): i
        case (nil, nil): nil
        }
    }

    // MARK: - Input

    /// Takes one complete ATT PDU from the peer.
    ///
    /// Bytes the bearer must send itself (an Error Response to an unknown or malformed
    /// request, a Handle Value Confirmation) are appended to `reply`; send them in order
    /// before anything the engines produce for this event.
    public mutating func receive(_ bytes: ArraySlice<UInt8>, at now: MonotonicTime,
                                 into reply: inout [UInt8]) -> ATTBearerEvent {
        guard closeReason == nil else { return .dropped }
        // The one branch on the opcode: the decode gives the role matched here and the
        // typed PDU handed on. Sequencing is checked before the decode's outcome is
        // looked at, so a malformed PDU breaks the protocol as a well-formed one would.
        switch ATTReceivedPDU(decoding: bytes) {
        case .empty:
            return .handled(ATTDecodingError(.empty, offset: 0))

        case .unknown(let opcode):
            // An unknown opcode without the command bit is treated as a request: it is
            // answered, so it takes part in request sequencing too.
            if opcode.isCommand { return .handled(nil) }
            if pendingPeerRequest != nil { return close(.requestWhileRequestPending(opcode)) }
            appendError(opcode, .requestNotSupported, to: &reply)
            return .handled(ATTDecodingError(.unknownOpcode, offset: 0, opcode: opcode.rawValue))

        case .request(let opcode, let decoded):
            if pendingPeerRequest != nil { return close(.requestWhileRequestPending(opcode)) }
            switch decoded {
            case .failure(let error):
                appendError(opcode, .invalidPDU, to: &reply)
                return .handled(error)
            case .success(let pdu):
                pendingPeerRequest = opcode
                if case .exchangeMTURequest(let request) = pdu { peerClientRxMTU = request.clientRxMTU }
                return .request(pdu)
            }

        case .command(let decoded):
            guard case .success(let pdu) = decoded else { return .handled(nil) }
            return .command(pdu)

        case .response(let opcode, let decoded):
            guard let ours = outstandingRequest else { return close(.unexpectedResponse(opcode)) }
            guard opcode == .errorResponse || ours.responseOpcode == opcode else {
                return close(.unexpectedResponse(opcode))
            }
            outstandingRequest = nil
            requestDeadline = nil
            switch decoded {
            case .failure(let error):
                return .malformedResponse(error, request: ours)
            case .success(let pdu):
                if case .exchangeMTUResponse(let response) = pdu {
                    mtu = Self.negotiated(client: rxMTU, server: response.serverRxMTU)
                }
                return .response(pdu, request: ours)
            }

        case .notification(let decoded):
            guard case .success(let notification) = decoded else { return .handled(nil) }
            return .notification(notification)

        case .multipleNotification(let decoded):
            guard case .success(let notifications) = decoded else { return .handled(nil) }
            return .multipleNotification(notifications)

        case .indication(let decoded):
            // Confirm first, whatever the payload: a peer must never stall on us.
            reply.append(ATTOpcode.handleValueConfirmation.rawValue)
            switch decoded {
            case .success(let indication): return .indication(indication)
            case .failure(let error): return .handled(error)
            }

        case .confirmation:
            guard indicationDeadline != nil else { return close(.unexpectedConfirmation) }
            // A confirmation with stray parameters still ends the transaction.
            indicationDeadline = nil
            return .confirmation
        }
    }

    /// Fires the transaction timeout when its deadline has passed.
    public mutating func tick(at now: MonotonicTime) -> ATTBearerEvent? {
        guard closeReason == nil else { return nil }
        if let d = requestDeadline, d <= now, let op = outstandingRequest {
            return close(.requestTimeout(op))
        }
        if let d = indicationDeadline, d <= now {
            return close(.indicationTimeout)
        }
        return nil
    }

    /// Closes the bearer from our side (link lost, shutdown).
    public mutating func close(because reason: String) -> ATTBearerEvent {
        guard closeReason == nil else { return .dropped }
        return close(.local(reason))
    }

    private mutating func close(_ reason: ATTBearerCloseReason) -> ATTBearerEvent {
        let failedRequest = outstandingRequest
        let failedIndication = indicationDeadline != nil
        closeReason = reason
        outstandingRequest = nil
        requestDeadline = nil
        indicationDeadline = nil
        pendingPeerRequest = nil
        return .closed(reason, failedRequest: failedRequest, failedIndication: failedIndication)
    }

    // MARK: - Output

    /// Encodes the answer to the peer's pending request (its response, or an Error
    /// Response) into `buffer`. After an Exchange MTU Response the new ATT_MTU applies.
    @inlinable
    public mutating func sendResponse<P: ATTPDUBody>(_ pdu: P, into buffer: inout [UInt8]) throws(ATTBearerError) {
        try checkResponse(P.opcode)
        do {
            try pdu.encode(into: &buffer, mtu: mtu)
        } catch {
            throw .encoding(error)
        }
        didRespond(P.opcode, pdu as? ExchangeMTUResponse)
    }

    /// Encodes an Error Response to the peer's pending request.
    public mutating func sendErrorResponse(_ code: ATTErrorCode, handle: AttributeHandle,
                                           into buffer: inout [UInt8]) throws(ATTBearerError) {
        guard let pending = pendingPeerRequest else {
            throw closeReason.map { .closed($0) } ?? .noRequestToAnswer
        }
        try sendResponse(ErrorResponse(requestOpcode: pending, handle: handle, errorCode: code), into: &buffer)
    }

    @usableFromInline
    func checkResponse(_ opcode: ATTOpcode) throws(ATTBearerError) {
        if let reason = closeReason { throw .closed(reason) }
        guard let pending = pendingPeerRequest else { throw .noRequestToAnswer }
        guard opcode == .errorResponse || pending.responseOpcode == opcode else {
            throw .wrongResponse(pending: pending, offered: opcode)
        }
    }

    @usableFromInline
    mutating func didRespond(_ opcode: ATTOpcode, _ mtuResponse: ExchangeMTUResponse?) {
        pendingPeerRequest = nil
        if let mtuResponse, let client = peerClientRxMTU, !peerExchangedMTU {
            mtu = Self.negotiated(client: client, server: mtuResponse.serverRxMTU)
            peerExchangedMTU = true
        }
        peerClientRxMTU = nil
    }

    /// Encodes one of our requests and starts its transaction timer.
    public mutating func sendRequest<P: ATTPDUBody>(_ pdu: P, into buffer: inout [UInt8],
                                                    at now: MonotonicTime) throws(ATTBearerError) {
        if let reason = closeReason { throw .closed(reason) }
        guard P.opcode.kind == .request else { throw .wrongKind(P.opcode) }
        if let ours = outstandingRequest { throw .requestOutstanding(ours) }
        do { try pdu.encode(into: &buffer, mtu: mtu) } catch { throw .encoding(error) }
        outstandingRequest = P.opcode
        requestDeadline = now + transactionTimeout
    }

    /// Encodes a Write Command or Signed Write Command.
    public mutating func sendCommand<P: ATTPDUBody>(_ pdu: P, into buffer: inout [UInt8]) throws(ATTBearerError) {
        if let reason = closeReason { throw .closed(reason) }
        guard P.opcode.kind == .command else { throw .wrongKind(P.opcode) }
        do { try pdu.encode(into: &buffer, mtu: mtu) } catch { throw .encoding(error) }
    }

    /// Encodes a Handle Value Notification or Multiple Handle Value Notification.
    public mutating func sendNotification<P: ATTPDUBody>(_ pdu: P, into buffer: inout [UInt8]) throws(ATTBearerError) {
        if let reason = closeReason { throw .closed(reason) }
        guard P.opcode.kind == .notification else { throw .wrongKind(P.opcode) }
        do { try pdu.encode(into: &buffer, mtu: mtu) } catch { throw .encoding(error) }
    }

    /// Encodes a Handle Value Indication and starts its transaction timer; refuses while
    /// another indication awaits its confirmation (the server engine queues).
    public mutating func sendIndication(_ pdu: HandleValueIndication, into buffer: inout [UInt8],
                                        at now: MonotonicTime) throws(ATTBearerError) {
        if let reason = closeReason { throw .closed(reason) }
        if indicationDeadline != nil { throw .indicationOutstanding }
        do { try pdu.encode(into: &buffer, mtu: mtu) } catch { throw .encoding(error) }
        indicationDeadline = now + transactionTimeout
    }

    /// `max(23, min(client Rx, server Rx))` (Vol 3 Part F §3.4.2.2).
    public static func negotiated(client: UInt16, server: UInt16) -> Int {
        max(defaultMTU, Int(min(client, server)))
    }

    private func appendError(_ request: ATTOpcode, _ code: ATTErrorCode, to reply: inout [UInt8]) {
        ErrorResponse(requestOpcode: request, handle: .reserved, errorCode: code).appendPDU(to: &reply)
    }
}

extension ErrorResponse {
    /// Error Responses are 5 bytes and always fit the minimum MTU.
    @inlinable
    func appendPDU(to buffer: inout [UInt8]) {
        buffer.append(Self.opcode.rawValue)
        appendParameters(to: &buffer)
    }
}
