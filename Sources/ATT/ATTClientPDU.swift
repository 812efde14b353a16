/// A PDU a client sends, which is what a server receives (Vol 3 Part F §3.3, §3.4):
/// every request, the two write commands, and the confirmation of an indication.
///
/// Cases carry the same structs as ``ATTPDU``, so payloads stay slices of the input. A
/// server switches over this type instead of ``ATTPDU`` to serve every PDU a client can
/// send without a `default:` arm; a response that reached the server is not a value of
/// this type at all.
public enum ATTClientPDU: ATTDirectedPDU {
    case exchangeMTURequest(ExchangeMTURequest)
    case findInformationRequest(FindInformationRequest)
    case findByTypeValueRequest(FindByTypeValueRequest)
    case readByTypeRequest(ReadByTypeRequest)
    case readRequest(ReadRequest)
    case readBlobRequest(ReadBlobRequest)
    case readMultipleRequest(ReadMultipleRequest)
    case readByGroupTypeRequest(ReadByGroupTypeRequest)
    case writeRequest(WriteRequest)
    case prepareWriteRequest(PrepareWriteRequest)
    case executeWriteRequest(ExecuteWriteRequest)
    case readMultipleVariableRequest(ReadMultipleVariableRequest)
    case writeCommand(WriteCommand)
    case signedWriteCommand(SignedWriteCommand)
    case handleValueConfirmation(HandleValueConfirmation)

    /// The PDU with the side that sends it.
    @inlinable
    public var direction: ATTPDUDirection { .clientToServer(self) }
}
