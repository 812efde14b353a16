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

    /// The PDU in `direction`, when a client sent it.
    @inlinable
    public static func narrowed(_ direction: ATTPDUDirection) -> ATTClientPDU? { direction.client }

    /// The same PDU as an ``ATTPDU``, for code that treats both directions alike.
    @inlinable
    public var pdu: ATTPDU { ATTPDU(self) }
}

extension ATTPDU {
    /// Widens a client's PDU to the type of all PDUs.
    @inlinable
    public init(_ pdu: ATTClientPDU) {
        switch pdu {
        case .exchangeMTURequest(let p): self = .exchangeMTURequest(p)
        case .findInformationRequest(let p): self = .findInformationRequest(p)
        case .findByTypeValueRequest(let p): self = .findByTypeValueRequest(p)
        case .readByTypeRequest(let p): self = .readByTypeRequest(p)
        case .readRequest(let p): self = .readRequest(p)
        case .readBlobRequest(let p): self = .readBlobRequest(p)
        case .readMultipleRequest(let p): self = .readMultipleRequest(p)
        case .readByGroupTypeRequest(let p): self = .readByGroupTypeRequest(p)
        case .writeRequest(let p): self = .writeRequest(p)
        case .prepareWriteRequest(let p): self = .prepareWriteRequest(p)
        case .executeWriteRequest(let p): self = .executeWriteRequest(p)
        case .readMultipleVariableRequest(let p): self = .readMultipleVariableRequest(p)
        case .writeCommand(let p): self = .writeCommand(p)
        case .signedWriteCommand(let p): self = .signedWriteCommand(p)
        case .handleValueConfirmation(let p): self = .handleValueConfirmation(p)
        }
    }
}
