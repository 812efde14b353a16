/// One PDU from the peer, decoded once: a single switch over its opcode gives the PDU's
/// role in the sequential protocol (Vol 3 Part F §3.3), its direction, and its
/// parameters typed for the engine that takes it.
///
/// This is the only place a received opcode is branched on. The bearer matches on the
/// role to sequence the protocol and hands the typed PDU on; a server switches over
/// ``ATTClientPDU`` and a client over ``ATTServerPDU``. Notifications and the indication
/// come as their own structs, so the client delivers them without a second switch over
/// the PDU. The flat ``ATTPDU`` is widened from these for presentation and is not on this
/// path.
///
/// The role is known even when the parameters do not decode, because the bearer answers
/// by role: a malformed request gets Invalid PDU, a malformed response fails our request,
/// a malformed indication is still confirmed, and a malformed command or notification is
/// ignored. Payloads are slices of the input.
public enum ATTReceivedPDU: Hashable, Sendable {
    /// A request, which the peer sends as a client and expects answered.
    case request(ATTOpcode, Result<ATTClientPDU, ATTDecodingError>)
    /// A Write Command or Signed Write Command: no answer.
    case command(Result<ATTClientPDU, ATTDecodingError>)
    /// The confirmation of our indication.
    case confirmation(Result<HandleValueConfirmation, ATTDecodingError>)
    /// A response or Error Response, which the peer sends as a server.
    case response(ATTOpcode, Result<ATTServerPDU, ATTDecodingError>)
    /// A Handle Value Notification.
    case notification(Result<HandleValueNotification, ATTDecodingError>)
    /// A Multiple Handle Value Notification.
    case multipleNotification(Result<MultipleHandleValueNotification, ATTDecodingError>)
    /// A Handle Value Indication, which must be confirmed whatever it holds.
    case indication(Result<HandleValueIndication, ATTDecodingError>)
    /// An opcode the spec does not define.
    case unknown(ATTOpcode)
    /// No bytes at all.
    case empty

    /// Decodes one complete PDU: the opcode picks the role and the parameter decoder in
    /// one switch; the whole input must be consumed.
    @inlinable
    public init(decoding bytes: ArraySlice<UInt8>) {
        guard let first = bytes.first else {
            self = .empty
            return
        }
        let op = ATTOpcode(first)
        switch first {
        case 0x01: self = .response(op, Self.parse(bytes, ErrorResponse.self).map(ATTServerPDU.errorResponse))
        case 0x02: self = .request(op, Self.parse(bytes, ExchangeMTURequest.self).map(ATTClientPDU.exchangeMTURequest))
        case 0x03: self = .response(op, Self.parse(bytes, ExchangeMTUResponse.self).map(ATTServerPDU.exchangeMTUResponse))
        case 0x04: self = .request(op, Self.parse(bytes, FindInformationRequest.self).map(ATTClientPDU.findInformationRequest))
        case 0x05:
            self = .response(op, Self.parse(bytes, FindInformationResponse.self).map(ATTServerPDU.findInformationResponse))
        case 0x06: self = .request(op, Self.parse(bytes, FindByTypeValueRequest.self).map(ATTClientPDU.findByTypeValueRequest))
        case 0x07:
            self = .response(op, Self.parse(bytes, FindByTypeValueResponse.self).map(ATTServerPDU.findByTypeValueResponse))
        case 0x08: self = .request(op, Self.parse(bytes, ReadByTypeRequest.self).map(ATTClientPDU.readByTypeRequest))
        case 0x09: self = .response(op, Self.parse(bytes, ReadByTypeResponse.self).map(ATTServerPDU.readByTypeResponse))
        case 0x0A: self = .request(op, Self.parse(bytes, ReadRequest.self).map(ATTClientPDU.readRequest))
        case 0x0B: self = .response(op, Self.parse(bytes, ReadResponse.self).map(ATTServerPDU.readResponse))
        case 0x0C: self = .request(op, Self.parse(bytes, ReadBlobRequest.self).map(ATTClientPDU.readBlobRequest))
        case 0x0D: self = .response(op, Self.parse(bytes, ReadBlobResponse.self).map(ATTServerPDU.readBlobResponse))
        case 0x0E: self = .request(op, Self.parse(bytes, ReadMultipleRequest.self).map(ATTClientPDU.readMultipleRequest))
        case 0x0F: self = .response(op, Self.parse(bytes, ReadMultipleResponse.self).map(ATTServerPDU.readMultipleResponse))
        case 0x10: self = .request(op, Self.parse(bytes, ReadByGroupTypeRequest.self).map(ATTClientPDU.readByGroupTypeRequest))
        case 0x11:
            self = .response(op, Self.parse(bytes, ReadByGroupTypeResponse.self).map(ATTServerPDU.readByGroupTypeResponse))
        case 0x12: self = .request(op, Self.parse(bytes, WriteRequest.self).map(ATTClientPDU.writeRequest))
        case 0x13: self = .response(op, Self.parse(bytes, WriteResponse.self).map(ATTServerPDU.writeResponse))
        case 0x16: self = .request(op, Self.parse(bytes, PrepareWriteRequest.self).map(ATTClientPDU.prepareWriteRequest))
        case 0x17: self = .response(op, Self.parse(bytes, PrepareWriteResponse.self).map(ATTServerPDU.prepareWriteResponse))
        case 0x18: self = .request(op, Self.parse(bytes, ExecuteWriteRequest.self).map(ATTClientPDU.executeWriteRequest))
        case 0x19: self = .response(op, Self.parse(bytes, ExecuteWriteResponse.self).map(ATTServerPDU.executeWriteResponse))
        case 0x1B: self = .notification(Self.parse(bytes, HandleValueNotification.self))
        case 0x1D: self = .indication(Self.parse(bytes, HandleValueIndication.self))
        case 0x1E: self = .confirmation(Self.parse(bytes, HandleValueConfirmation.self))
        case 0x20:
            self = .request(op, Self.parse(bytes, ReadMultipleVariableRequest.self)
                .map(ATTClientPDU.readMultipleVariableRequest))
        case 0x21:
            self = .response(op, Self.parse(bytes, ReadMultipleVariableResponse.self)
                .map(ATTServerPDU.readMultipleVariableResponse))
        case 0x23: self = .multipleNotification(Self.parse(bytes, MultipleHandleValueNotification.self))
        case 0x52: self = .command(Self.parse(bytes, WriteCommand.self).map(ATTClientPDU.writeCommand))
        case 0xD2: self = .command(Self.parse(bytes, SignedWriteCommand.self).map(ATTClientPDU.signedWriteCommand))
        default: self = .unknown(op)
        }
    }

    /// The parameters after the opcode, as `P`, with nothing left over.
    @inlinable
    static func parse<P: ATTPDUBody>(_ bytes: ArraySlice<UInt8>, _: P.Type) -> Result<P, ATTDecodingError> {
        do throws(ATTDecodingError) {
            var reader = ByteReader(bytes, opcode: P.opcode.rawValue)
            _ = try reader.readUInt8("opcode")
            let pdu = try P(parameters: &reader)
            try reader.expectEnd()
            return .success(pdu)
        } catch {
            return .failure(error)
        }
    }

    /// The decoded PDU of either direction, or why it did not decode: what a decoder of
    /// one side narrows, and what ``ATTPDU/decode(_:)`` widens.
    @inlinable
    public func decoded() throws(ATTDecodingError) -> ATTPDUDirection {
        switch self {
        case .request(_, let r), .command(let r): .clientToServer(try r.get())
        case .confirmation(let r): .clientToServer(.handleValueConfirmation(try r.get()))
        case .response(_, let r): .serverToClient(try r.get())
        case .notification(let r): .serverToClient(.handleValueNotification(try r.get()))
        case .multipleNotification(let r): .serverToClient(.multipleHandleValueNotification(try r.get()))
        case .indication(let r): .serverToClient(.handleValueIndication(try r.get()))
        case .unknown(let op): throw ATTDecodingError(.unknownOpcode, offset: 0, opcode: op.rawValue)
        case .empty: throw ATTDecodingError(.empty, offset: 0)
        }
    }
}
