import ATT

/// Sends one request whose answer nobody waits for (an Execute Write cancel after the
/// application cancelled a long write).
struct CleanupProcedure: ClientProcedure {
    let request: ATTClientPDU
    func start(_ context: ProcedureContext) -> ProcedureStep { .request(request) }
    func receive(_ pdu: ATTServerPDU, bytes: ArraySlice<UInt8>, _ context: ProcedureContext) -> ProcedureStep {
        .finish(.success(.done))
    }
}
