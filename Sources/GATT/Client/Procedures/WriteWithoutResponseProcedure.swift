import ATT

/// Write Without Response (Vol 3 Part G §4.9.1): one Write Command; the server never
/// answers, so the procedure ends when the command is handed to the bearer.
struct WriteWithoutResponseProcedure: ClientProcedure {
    let handle: AttributeHandle
    let value: [UInt8]

    func start(_ context: ProcedureContext) -> ProcedureStep {
        guard value.count <= context.mtu - 3 else {
            return .fail(.invalidArgument("\(value.count) bytes exceed ATT_MTU − 3 = \(context.mtu - 3)"))
        }
        return .command(.writeCommand(WriteCommand(handle: handle, value: value)), .done)
    }

    func receive(_ pdu: ATTServerPDU, bytes: ArraySlice<UInt8>, _ context: ProcedureContext) -> ProcedureStep {
        .violation(.unsolicitedResponse, pdu, bytes)
    }
}
