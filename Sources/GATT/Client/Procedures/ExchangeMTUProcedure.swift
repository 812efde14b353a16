import ATT

/// Exchange MTU (Vol 3 Part G §4.3.1): ATT_MTU becomes the smaller of both Rx MTUs, and
/// never less than the LE default of 23. A server that does not support the request
/// leaves the default in force.
struct ExchangeMTUProcedure: ClientProcedure {
    var rxMTU: UInt16

    func start(_ context: ProcedureContext) -> ProcedureStep {
        .request(.exchangeMTURequest(ExchangeMTURequest(clientRxMTU: rxMTU)))
    }

    func receive(_ pdu: ATTServerPDU, bytes: ArraySlice<UInt8>, _ context: ProcedureContext) -> ProcedureStep {
        switch pdu {
        case let .exchangeMTUResponse(r):
            return .finish(.success(.mtu(max(23, Int(min(rxMTU, r.serverRxMTU))))))
        default:
            return .finish(.success(.mtu(23)))
        }
    }
}
