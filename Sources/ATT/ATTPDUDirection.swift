/// Which side of a bearer sends a PDU, with the PDU typed for that side.
///
/// ATT fixes the direction of every PDU (Vol 3 Part F §3.3): a client sends requests,
/// commands and confirmations; a server sends responses, notifications and indications.
/// ``ATTReceivedPDU/decoded()`` gives it for a received PDU; ``ATTPDU/direction`` sorts
/// a PDU built in code, and `ATTPDU.init(_:)` widens it back: the
/// one mapping between the flat type and the two sides, in both directions.
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

extension ATTPDU {
    /// Widens a PDU of either side to the type of all PDUs; the inverse of ``direction``.
    @inlinable
    public init(_ direction: ATTPDUDirection) {
        switch direction {
        case .clientToServer(.exchangeMTURequest(let p)): self = .exchangeMTURequest(p)
        case .clientToServer(.findInformationRequest(let p)): self = .findInformationRequest(p)
        case .clientToServer(.findByTypeValueRequest(let p)): self = .findByTypeValueRequest(p)
        case .clientToServer(.readByTypeRequest(let p)): self = .readByTypeRequest(p)
        case .clientToServer(.readRequest(let p)): self = .readRequest(p)
        case .clientToServer(.readBlobRequest(let p)): self = .readBlobRequest(p)
        case .clientToServer(.readMultipleRequest(let p)): self = .readMultipleRequest(p)
        case .clientToServer(.readByGroupTypeRequest(let p)): self = .readByGroupTypeRequest(p)
        case .clientToServer(.writeRequest(let p)): self = .writeRequest(p)
        case .clientToServer(.prepareWriteRequest(let p)): self = .prepareWriteRequest(p)
        case .clientToServer(.executeWriteRequest(let p)): self = .executeWriteRequest(p)
        case .clientToServer(.readMultipleVariableRequest(let p)): self = .readMultipleVariableRequest(p)
        case .clientToServer(.writeCommand(let p)): self = .writeCommand(p)
        case .clientToServer(.signedWriteCommand(let p)): self = .signedWriteCommand(p)
        case .clientToServer(.handleValueConfirmation(let p)): self = .handleValueConfirmation(p)
        case .serverToClient(.errorResponse(let p)): self = .errorResponse(p)
        case .serverToClient(.exchangeMTUResponse(let p)): self = .exchangeMTUResponse(p)
        case .serverToClient(.findInformationResponse(let p)): self = .findInformationResponse(p)
        case .serverToClient(.findByTypeValueResponse(let p)): self = .findByTypeValueResponse(p)
        case .serverToClient(.readByTypeResponse(let p)): self = .readByTypeResponse(p)
        case .serverToClient(.readResponse(let p)): self = .readResponse(p)
        case .serverToClient(.readBlobResponse(let p)): self = .readBlobResponse(p)
        case .serverToClient(.readMultipleResponse(let p)): self = .readMultipleResponse(p)
        case .serverToClient(.readByGroupTypeResponse(let p)): self = .readByGroupTypeResponse(p)
        case .serverToClient(.writeResponse(let p)): self = .writeResponse(p)
        case .serverToClient(.prepareWriteResponse(let p)): self = .prepareWriteResponse(p)
        case .serverToClient(.executeWriteResponse(let p)): self = .executeWriteResponse(p)
        case .serverToClient(.readMultipleVariableResponse(let p)): self = .readMultipleVariableResponse(p)
        case .serverToClient(.handleValueNotification(let p)): self = .handleValueNotification(p)
        case .serverToClient(.handleValueIndication(let p)): self = .handleValueIndication(p)
        case .serverToClient(.multipleHandleValueNotification(let p)): self = .multipleHandleValueNotification(p)
        }
    }
}
