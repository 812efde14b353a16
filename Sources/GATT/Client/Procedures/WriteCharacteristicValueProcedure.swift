import ATT

/// Write Characteristic Value (Vol 3 Part G §4.9.3) and Write Characteristic Descriptor
/// (§4.12.3): one Write Request. Values longer than ATT_MTU − 3 need Write Long.
struct WriteCharacteristicValueProcedure: ClientProcedure {
    let handle: AttributeHandle
    let value: [UInt8]

    func start(_ context: ProcedureContext) -> ProcedureStep {
        guard value.count <= context.mtu - 3 else {
            return .fail(.invalidArgument("\(value.count) bytes exceed ATT_MTU − 3 = \(context.mtu - 3); use a long write"))
        }
        return .request(.writeRequest(WriteRequest(handle: handle, value: value)))
    }

    func receive(_ pdu: ATTServerPDU, bytes: ArraySlice<UInt8>, _ context: ProcedureContext) -> ProcedureStep {
        switch pdu {
        case .writeResponse: .finish(.success(.done))
        case let .errorResponse(e): .fail(e.clientError)
        default: .violation(.unexpectedResponse(expected: .writeResponse), pdu, bytes)
        }
    }
}
