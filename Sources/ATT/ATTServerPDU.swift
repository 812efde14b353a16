/// A PDU a server sends, which is what a client receives (Vol 3 Part F §3.3, §3.4):
/// every response including Error Response, and the notifications and indication a
/// server pushes unasked.
///
/// Cases carry the same structs as ``ATTPDU``, so payloads stay slices of the input. A
/// client switches over this type instead of ``ATTPDU`` to handle every PDU a server can
/// send without a `default:` arm; a request that reached the client is not a value of
/// this type at all.
public enum ATTServerPDU: ATTDirectedPDU {
    case errorResponse(ErrorResponse)
    case exchangeMTUResponse(ExchangeMTUResponse)
    case findInformationResponse(FindInformationResponse)
    case findByTypeValueResponse(FindByTypeValueResponse)
    case readByTypeResponse(ReadByTypeResponse)
    case readResponse(ReadResponse)
    case readBlobResponse(ReadBlobResponse)
    case readMultipleResponse(ReadMultipleResponse)
    case readByGroupTypeResponse(ReadByGroupTypeResponse)
    case writeResponse(WriteResponse)
    case prepareWriteResponse(PrepareWriteResponse)
    case executeWriteResponse(ExecuteWriteResponse)
    case readMultipleVariableResponse(ReadMultipleVariableResponse)
    case handleValueNotification(HandleValueNotification)
    case handleValueIndication(HandleValueIndication)
    case multipleHandleValueNotification(MultipleHandleValueNotification)

    /// The PDU in `direction`, when a server sent it.
    @inlinable
    public static func narrowed(_ direction: ATTPDUDirection) -> ATTServerPDU? { direction.server }

    /// The same PDU as an ``ATTPDU``, for code that treats both directions alike.
    @inlinable
    public var pdu: ATTPDU { ATTPDU(self) }
}

extension ATTPDU {
    /// Widens a server's PDU to the type of all PDUs.
    @inlinable
    public init(_ pdu: ATTServerPDU) {
        switch pdu {
        case .errorResponse(let p): self = .errorResponse(p)
        case .exchangeMTUResponse(let p): self = .exchangeMTUResponse(p)
        case .findInformationResponse(let p): self = .findInformationResponse(p)
        case .findByTypeValueResponse(let p): self = .findByTypeValueResponse(p)
        case .readByTypeResponse(let p): self = .readByTypeResponse(p)
        case .readResponse(let p): self = .readResponse(p)
        case .readBlobResponse(let p): self = .readBlobResponse(p)
        case .readMultipleResponse(let p): self = .readMultipleResponse(p)
        case .readByGroupTypeResponse(let p): self = .readByGroupTypeResponse(p)
        case .writeResponse(let p): self = .writeResponse(p)
        case .prepareWriteResponse(let p): self = .prepareWriteResponse(p)
        case .executeWriteResponse(let p): self = .executeWriteResponse(p)
        case .readMultipleVariableResponse(let p): self = .readMultipleVariableResponse(p)
        case .handleValueNotification(let p): self = .handleValueNotification(p)
        case .handleValueIndication(let p): self = .handleValueIndication(p)
        case .multipleHandleValueNotification(let p): self = .multipleHandleValueNotification(p)
        }
    }
}
