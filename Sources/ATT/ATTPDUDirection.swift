/// Which side of a bearer sends a PDU, with the PDU typed for that side.
///
/// ATT fixes the direction of every PDU (Vol 3 Part F §3.3): a client sends requests,
/// commands and confirmations; a server sends responses, notifications and indications.
/// ``ATTReceivedPDU/decoded()`` gives it for a received PDU; ``ATTPDU/direction`` sorts
/// a PDU built in code.
public enum ATTPDUDirection: Hashable, Sendable {
    /// A client sent it; a server receives it.
    case clientToServer(ATTClientPDU)
    /// A server sent it; a client receives it.
    case serverToClient(ATTServerPDU)

    /// The PDU, when a client sent it.
    @inlinable
    public var client: ATTClientPDU? { if case .clientToServer(let p) = self { p } else { nil } }

    /// The PDU, when a server sent it.
    @inlinable
    public var server: ATTServerPDU? { if case .serverToClient(let p) = self { p } else { nil } }
}

extension ATTPDU {
    /// Who sends this PDU, with the PDU narrowed to that side's type.
    @inlinable
    public var direction: ATTPDUDirection {
        switch self {
        case .exchangeMTURequest(let p): .clientToServer(.exchangeMTURequest(p))
        case .findInformationRequest(let p): .clientToServer(.findInformationRequest(p))
        case .findByTypeValueRequest(let p): .clientToServer(.findByTypeValueRequest(p))
        case .readByTypeRequest(let p): .clientToServer(.readByTypeRequest(p))
        case .readRequest(let p): .clientToServer(.readRequest(p))
        case .readBlobRequest(let p): .clientToServer(.readBlobRequest(p))
        case .readMultipleRequest(let p): .clientToServer(.readMultipleRequest(p))
        case .readByGroupTypeRequest(let p): .clientToServer(.readByGroupTypeRequest(p))
        case .writeRequest(let p): .clientToServer(.writeRequest(p))
        case .prepareWriteRequest(let p): .clientToServer(.prepareWriteRequest(p))
        case .executeWriteRequest(let p): .clientToServer(.executeWriteRequest(p))
        case .readMultipleVariableRequest(let p): .clientToServer(.readMultipleVariableRequest(p))
        case .writeCommand(let p): .clientToServer(.writeCommand(p))
        case .signedWriteCommand(let p): .clientToServer(.signedWriteCommand(p))
        case .handleValueConfirmation(let p): .clientToServer(.handleValueConfirmation(p))
        case .errorResponse(let p): .serverToClient(.errorResponse(p))
        case .exchangeMTUResponse(let p): .serverToClient(.exchangeMTUResponse(p))
        case .findInformationResponse(let p): .serverToClient(.findInformationResponse(p))
        case .findByTypeValueResponse(let p): .serverToClient(.findByTypeValueResponse(p))
        case .readByTypeResponse(let p): .serverToClient(.readByTypeResponse(p))
        case .readResponse(let p): .serverToClient(.readResponse(p))
        case .readBlobResponse(let p): .serverToClient(.readBlobResponse(p))
        case .readMultipleResponse(let p): .serverToClient(.readMultipleResponse(p))
        case .readByGroupTypeResponse(let p): .serverToClient(.readByGroupTypeResponse(p))
        case .writeResponse(let p): .serverToClient(.writeResponse(p))
        case .prepareWriteResponse(let p): .serverToClient(.prepareWriteResponse(p))
        case .executeWriteResponse(let p): .serverToClient(.executeWriteResponse(p))
        case .readMultipleVariableResponse(let p): .serverToClient(.readMultipleVariableResponse(p))
        case .handleValueNotification(let p): .serverToClient(.handleValueNotification(p))
        case .handleValueIndication(let p): .serverToClient(.handleValueIndication(p))
        case .multipleHandleValueNotification(let p): .serverToClient(.multipleHandleValueNotification(p))
        }
    }
}
