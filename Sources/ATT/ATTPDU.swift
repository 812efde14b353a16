/// Any ATT PDU of Core Spec 5.4 Vol 3 Part F §3.4.
///
/// ``decode(_:)`` validates strictly (exact lengths, consistent list lengths, the Find
/// Information format byte, no zero handles where the spec forbids them) and never traps.
/// Payloads are slices of the input.
///
/// This flat type is for encoding and presentation (dissectors, captures, replay). A
/// received PDU reaches its engine as an ``ATTReceivedPDU`` instead, typed by direction.
public enum ATTPDU: Hashable, Sendable, CustomStringConvertible {
    case errorResponse(ErrorResponse)
    case exchangeMTURequest(ExchangeMTURequest)
    case exchangeMTUResponse(ExchangeMTUResponse)
    case findInformationRequest(FindInformationRequest)
    case findInformationResponse(FindInformationResponse)
    case findByTypeValueRequest(FindByTypeValueRequest)
    case findByTypeValueResponse(FindByTypeValueResponse)
    case readByTypeRequest(ReadByTypeRequest)
    case readByTypeResponse(ReadByTypeResponse)
    case readRequest(ReadRequest)
    case readResponse(ReadResponse)
    case readBlobRequest(ReadBlobRequest)
    case readBlobResponse(ReadBlobResponse)
    case readMultipleRequest(ReadMultipleRequest)
    case readMultipleResponse(ReadMultipleResponse)
    case readByGroupTypeRequest(ReadByGroupTypeRequest)
    case readByGroupTypeResponse(ReadByGroupTypeResponse)
    case writeRequest(WriteRequest)
    case writeResponse(WriteResponse)
    case prepareWriteRequest(PrepareWriteRequest)
    case prepareWriteResponse(PrepareWriteResponse)
    case executeWriteRequest(ExecuteWriteRequest)
    case executeWriteResponse(ExecuteWriteResponse)
    case handleValueNotification(HandleValueNotification)
    case handleValueIndication(HandleValueIndication)
    case handleValueConfirmation(HandleValueConfirmation)
    case readMultipleVariableRequest(ReadMultipleVariableRequest)
    case readMultipleVariableResponse(ReadMultipleVariableResponse)
    case multipleHandleValueNotification(MultipleHandleValueNotification)
    case writeCommand(WriteCommand)
    case signedWriteCommand(SignedWriteCommand)

    /// Decodes one complete PDU. The decoding is ``ATTReceivedPDU``'s, the one every
    /// received PDU takes; this only widens its result for tools and presentation.
    @inlinable
    public static func decode(_ bytes: ArraySlice<UInt8>) throws(ATTDecodingError) -> ATTPDU {
        ATTPDU(try ATTReceivedPDU(decoding: bytes).decoded())
    }

    /// Decodes one complete PDU from an array.
    @inlinable
    public static func decode(_ bytes: [UInt8]) throws(ATTDecodingError) -> ATTPDU { try decode(bytes[...]) }

    /// The body of the PDU, for code that treats all PDUs alike.
    public var body: any ATTPDUBody {
        switch self {
        case .errorResponse(let p): p
        case .exchangeMTURequest(let p): p
        case .exchangeMTUResponse(let p): p
        case .findInformationRequest(let p): p
        case .findInformationResponse(let p): p
        case .findByTypeValueRequest(let p): p
        case .findByTypeValueResponse(let p): p
        case .readByTypeRequest(let p): p
        case .readByTypeResponse(let p): p
        case .readRequest(let p): p
        case .readResponse(let p): p
        case .readBlobRequest(let p): p
        case .readBlobResponse(let p): p
        case .readMultipleRequest(let p): p
        case .readMultipleResponse(let p): p
        case .readByGroupTypeRequest(let p): p
        case .readByGroupTypeResponse(let p): p
        case .writeRequest(let p): p
        case .writeResponse(let p): p
        case .prepareWriteRequest(let p): p
        case .prepareWriteResponse(let p): p
        case .executeWriteRequest(let p): p
        case .executeWriteResponse(let p): p
        case .handleValueNotification(let p): p
        case .handleValueIndication(let p): p
        case .handleValueConfirmation(let p): p
        case .readMultipleVariableRequest(let p): p
        case .readMultipleVariableResponse(let p): p
        case .multipleHandleValueNotification(let p): p
        case .writeCommand(let p): p
        case .signedWriteCommand(let p): p
        }
    }

    public var opcode: ATTOpcode {
        switch self {
        case .errorResponse: ErrorResponse.opcode
        case .exchangeMTURequest: ExchangeMTURequest.opcode
        case .exchangeMTUResponse: ExchangeMTUResponse.opcode
        case .findInformationRequest: FindInformationRequest.opcode
        case .findInformationResponse: FindInformationResponse.opcode
        case .findByTypeValueRequest: FindByTypeValueRequest.opcode
        case .findByTypeValueResponse: FindByTypeValueResponse.opcode
        case .readByTypeRequest: ReadByTypeRequest.opcode
        case .readByTypeResponse: ReadByTypeResponse.opcode
        case .readRequest: ReadRequest.opcode
        case .readResponse: ReadResponse.opcode
        case .readBlobRequest: ReadBlobRequest.opcode
        case .readBlobResponse: ReadBlobResponse.opcode
        case .readMultipleRequest: ReadMultipleRequest.opcode
        case .readMultipleResponse: ReadMultipleResponse.opcode
        case .readByGroupTypeRequest: ReadByGroupTypeRequest.opcode
        case .readByGroupTypeResponse: ReadByGroupTypeResponse.opcode
        case .writeRequest: WriteRequest.opcode
        case .writeResponse: WriteResponse.opcode
        case .prepareWriteRequest: PrepareWriteRequest.opcode
        case .prepareWriteResponse: PrepareWriteResponse.opcode
        case .executeWriteRequest: ExecuteWriteRequest.opcode
        case .executeWriteResponse: ExecuteWriteResponse.opcode
        case .handleValueNotification: HandleValueNotification.opcode
        case .handleValueIndication: HandleValueIndication.opcode
        case .handleValueConfirmation: HandleValueConfirmation.opcode
        case .readMultipleVariableRequest: ReadMultipleVariableRequest.opcode
        case .readMultipleVariableResponse: ReadMultipleVariableResponse.opcode
        case .multipleHandleValueNotification: MultipleHandleValueNotification.opcode
        case .writeCommand: WriteCommand.opcode
        case .signedWriteCommand: SignedWriteCommand.opcode
        }
    }

    /// Length of the encoded PDU, opcode included.
    @inlinable
    public var encodedLength: Int {
        switch self {
        case .errorResponse(let p): 1 + p.parameterLength
        case .exchangeMTURequest(let p): 1 + p.parameterLength
        case .exchangeMTUResponse(let p): 1 + p.parameterLength
        case .findInformationRequest(let p): 1 + p.parameterLength
        case .findInformationResponse(let p): 1 + p.parameterLength
        case .findByTypeValueRequest(let p): 1 + p.parameterLength
        case .findByTypeValueResponse(let p): 1 + p.parameterLength
        case .readByTypeRequest(let p): 1 + p.parameterLength
        case .readByTypeResponse(let p): 1 + p.parameterLength
        case .readRequest(let p): 1 + p.parameterLength
        case .readResponse(let p): 1 + p.parameterLength
        case .readBlobRequest(let p): 1 + p.parameterLength
        case .readBlobResponse(let p): 1 + p.parameterLength
        case .readMultipleRequest(let p): 1 + p.parameterLength
        case .readMultipleResponse(let p): 1 + p.parameterLength
        case .readByGroupTypeRequest(let p): 1 + p.parameterLength
        case .readByGroupTypeResponse(let p): 1 + p.parameterLength
        case .writeRequest(let p): 1 + p.parameterLength
        case .writeResponse(let p): 1 + p.parameterLength
        case .prepareWriteRequest(let p): 1 + p.parameterLength
        case .prepareWriteResponse(let p): 1 + p.parameterLength
        case .executeWriteRequest(let p): 1 + p.parameterLength
        case .executeWriteResponse(let p): 1 + p.parameterLength
        case .handleValueNotification(let p): 1 + p.parameterLength
        case .handleValueIndication(let p): 1 + p.parameterLength
        case .handleValueConfirmation(let p): 1 + p.parameterLength
        case .readMultipleVariableRequest(let p): 1 + p.parameterLength
        case .readMultipleVariableResponse(let p): 1 + p.parameterLength
        case .multipleHandleValueNotification(let p): 1 + p.parameterLength
        case .writeCommand(let p): 1 + p.parameterLength
        case .signedWriteCommand(let p): 1 + p.parameterLength
        }
    }

    /// Appends the whole PDU to `buffer`; fails rather than exceed `mtu`.
    @inlinable
    public func encode(into buffer: inout [UInt8], mtu: Int = Int.max) throws(ATTEncodingError) {
        switch self {
        case .errorResponse(let p): try p.encode(into: &buffer, mtu: mtu)
        case .exchangeMTURequest(let p): try p.encode(into: &buffer, mtu: mtu)
        case .exchangeMTUResponse(let p): try p.encode(into: &buffer, mtu: mtu)
        case .findInformationRequest(let p): try p.encode(into: &buffer, mtu: mtu)
        case .findInformationResponse(let p): try p.encode(into: &buffer, mtu: mtu)
        case .findByTypeValueRequest(let p): try p.encode(into: &buffer, mtu: mtu)
        case .findByTypeValueResponse(let p): try p.encode(into: &buffer, mtu: mtu)
        case .readByTypeRequest(let p): try p.encode(into: &buffer, mtu: mtu)
        case .readByTypeResponse(let p): try p.encode(into: &buffer, mtu: mtu)
        case .readRequest(let p): try p.encode(into: &buffer, mtu: mtu)
        case .readResponse(let p): try p.encode(into: &buffer, mtu: mtu)
        case .readBlobRequest(let p): try p.encode(into: &buffer, mtu: mtu)
        case .readBlobResponse(let p): try p.encode(into: &buffer, mtu: mtu)
        case .readMultipleRequest(let p): try p.encode(into: &buffer, mtu: mtu)
        case .readMultipleResponse(let p): try p.encode(into: &buffer, mtu: mtu)
        case .readByGroupTypeRequest(let p): try p.encode(into: &buffer, mtu: mtu)
        case .readByGroupTypeResponse(let p): try p.encode(into: &buffer, mtu: mtu)
        case .writeRequest(let p): try p.encode(into: &buffer, mtu: mtu)
        case .writeResponse(let p): try p.encode(into: &buffer, mtu: mtu)
        case .prepareWriteRequest(let p): try p.encode(into: &buffer, mtu: mtu)
        case .prepareWriteResponse(let p): try p.encode(into: &buffer, mtu: mtu)
        case .executeWriteRequest(let p): try p.encode(into: &buffer, mtu: mtu)
        case .executeWriteResponse(let p): try p.encode(into: &buffer, mtu: mtu)
        case .handleValueNotification(let p): try p.encode(into: &buffer, mtu: mtu)
        case .handleValueIndication(let p): try p.encode(into: &buffer, mtu: mtu)
        case .handleValueConfirmation(let p): try p.encode(into: &buffer, mtu: mtu)
        case .readMultipleVariableRequest(let p): try p.encode(into: &buffer, mtu: mtu)
        case .readMultipleVariableResponse(let p): try p.encode(into: &buffer, mtu: mtu)
        case .multipleHandleValueNotification(let p): try p.encode(into: &buffer, mtu: mtu)
        case .writeCommand(let p): try p.encode(into: &buffer, mtu: mtu)
        case .signedWriteCommand(let p): try p.encode(into: &buffer, mtu: mtu)
        }
    }

    /// The whole PDU as a new array; fails rather than exceed `mtu`.
    public func encoded(mtu: Int = Int.max) throws(ATTEncodingError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(encodedLength)
        try encode(into: &out, mtu: mtu)
        return out
    }

    /// One line, like a dissector: "Read By Type Request 0x0001..0xffff type 0x2803 (Characteristic)".
    public var description: String {
        let params = body.description
        return params.isEmpty ? opcode.name : "\(opcode.name) \(params)"
    }
}
