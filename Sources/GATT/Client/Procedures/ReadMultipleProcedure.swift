import ATT

/// Read Multiple Characteristic Values (Vol 3 Part G §4.8.4): the values come back
/// concatenated; only the caller knows their lengths.
struct ReadMultipleProcedure: ClientProcedure {
    let handles: [AttributeHandle]

    func start(_ context: ProcedureContext) -> ProcedureStep {
        guard handles.count >= 2 else { return .fail(.invalidArgument("Read Multiple needs at least two handles")) }
        return .request(.readMultipleRequest(ReadMultipleRequest(handles: handles)))
    }

    func receive(_ pdu: ATTServerPDU, bytes: ArraySlice<UInt8>, _ context: ProcedureContext) -> ProcedureStep {
        switch pdu {
        case let .readMultipleResponse(r): .finish(.success(.value(Array(r.value))))
        case let .errorResponse(e): .fail(e.clientError)
        default: .violation(.unexpectedResponse(expected: .readMultipleResponse), pdu, bytes)
        }
    }
}
