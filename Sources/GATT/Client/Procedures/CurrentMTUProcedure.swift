import ATT

/// Reports the ATT_MTU in force once Exchange MTU has already been done.
struct CurrentMTUProcedure: ClientProcedure {
    func start(_ context: ProcedureContext) -> ProcedureStep { .finish(.success(.mtu(context.mtu))) }
    func receive(_ pdu: ATTServerPDU, bytes: ArraySlice<UInt8>, _ context: ProcedureContext) -> ProcedureStep {
        .violation(.unsolicitedResponse, pdu, bytes)
    }
}
