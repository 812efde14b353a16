import ATT

/// One GATT procedure as a state machine over ATT transactions. The engine sends the
/// requests it asks for, one at a time, and feeds back the matching response or Error
/// Response; the procedure never sees PDUs meant for anyone else.
protocol ClientProcedure: Sendable {
    /// The first step.
    mutating func start(_ context: ProcedureContext) -> ProcedureStep
    /// The server answered the last request (`pdu` is its response or Error Response;
    /// `bytes` the PDU as received, for error reports).
    mutating func receive(_ pdu: ATTServerPDU, bytes: ArraySlice<UInt8>, _ context: ProcedureContext) -> ProcedureStep
    /// The procedure was cancelled while a request was outstanding: a request that undoes
    /// server-side state (Execute Write cancel), if any.
    func cleanupRequest() -> ATTClientPDU?
    /// Whether ``GATTClientConfiguration/discoveryTimeout`` bounds this procedure.
    var isDatabaseDiscovery: Bool { get }
}

extension ClientProcedure {
    func cleanupRequest() -> ATTClientPDU? { nil }
    var isDatabaseDiscovery: Bool { false }
}

/// What the engine knows that procedures need.
struct ProcedureContext: Sendable {
    var mtu: Int
    var database: DiscoveredDatabase
    var configuration: GATTClientConfiguration
    var linkEncrypted: Bool
}

/// What a procedure wants next.
enum ProcedureStep: Sendable {
    /// Send this request and wait for its response.
    case request(ATTClientPDU)
    /// Send this command (no response comes) and finish with the result.
    case command(ATTClientPDU, GATTClientResponse)
    /// The procedure is over.
    case finish(Result<GATTClientResponse, GATTClientError>)

    static func fail(_ error: GATTClientError) -> ProcedureStep { .finish(.failure(error)) }
    static func violation(_ reason: ProtocolViolation.Reason, _ pdu: ATTServerPDU, _ bytes: ArraySlice<UInt8>) -> ProcedureStep {
        .finish(.failure(.protocolViolation(ProtocolViolation(reason, opcode: pdu.opcode, pdu: Array(bytes)))))
    }
}

extension ErrorResponse {
    var clientError: GATTClientError { .att(errorCode, handle: handle, request: requestOpcode) }
}
