import ATT

/// Read Characteristic Value (Vol 3 Part G §4.8.1) and Read Characteristic Descriptor
/// (§4.12.1): one Read Request.
struct ReadCharacteristicValueProcedure: ClientProcedure {
    let handle: AttributeHandle

    func start(_ context: ProcedureContext) -> ProcedureStep {
        .request(.readRequest(ReadRequest(handle: handle)))
    }

    func receive(_ pdu: ATTServerPDU, bytes: ArraySlice<UInt8>, _ context: ProcedureContext) -> ProcedureStep {
        switch pdu {
        case let .readResponse(r): .finish(.success(.value(Array(r.value))))
        case let .errorResponse(e): .fail(e.clientError)
        default: .violation(.unexpectedResponse(expected: .readResponse), pdu, bytes)
        }
    }
}
