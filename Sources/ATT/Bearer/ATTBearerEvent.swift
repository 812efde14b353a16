/// What one received PDU means to the engines above the bearer.
///
/// Requests, commands and confirmations go to the GATT server engine; responses,
/// notifications and indications go to the GATT client engine (ATT is symmetric, so
/// both may sit on one bearer). PDUs come typed for the engine they go to: an
/// ``ATTClientPDU`` for what the peer sent as a client, an ``ATTServerPDU`` for its
/// responses, and the struct itself for a notification or indication, which the client
/// delivers without switching over the PDU again.
public enum ATTBearerEvent: Hashable, Sendable {
    /// A well-formed request of the peer. The server must answer it through
    /// ``ATTBearer/sendResponse(_:into:)`` or ``ATTBearer/sendErrorResponse(_:into:)``;
    /// until then another request from the peer is a protocol violation.
    case request(ATTClientPDU)
    /// A well-formed Write Command or Signed Write Command. No answer.
    case command(ATTClientPDU)
    /// The answer (response or Error Response) to our outstanding request, which is
    /// now complete. `request` is the opcode we had sent.
    case response(ATTServerPDU, request: ATTOpcode)
    /// The peer answered our outstanding request with bytes that do not decode; the
    /// request is complete and failed.
    case malformedResponse(ATTDecodingError, request: ATTOpcode)
    /// A Handle Value Notification.
    case notification(HandleValueNotification)
    /// A Multiple Handle Value Notification.
    case multipleNotification(MultipleHandleValueNotification)
    /// A Handle Value Indication. The bearer has already produced its confirmation
    /// (see ``ATTBearer/receive(_:at:into:)``), so the peer never stalls even when no
    /// one listens.
    case indication(HandleValueIndication)
    /// The peer confirmed our outstanding indication.
    case confirmation
    /// The bearer answered the PDU itself (Request Not Supported, Invalid PDU, or the
    /// confirmation of a malformed indication) or ignored it (unknown command,
    /// malformed command or notification). Nothing for the engines to do.
    case handled(ATTDecodingError?)
    /// The bearer closed. `failedRequest` and `failedIndication` say what was pending and
    /// must now be failed by the engines above.
    case closed(ATTBearerCloseReason, failedRequest: ATTOpcode?, failedIndication: Bool)
    /// The bearer is already closed; the input was dropped.
    case dropped
}
