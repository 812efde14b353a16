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

    /// The PDU with the side that sends it.
    @inlinable
    public var direction: ATTPDUDirection { .serverToClient(self) }
}
