import ATT

extension ATTBearer {
    /// Sends a request given as an ``ATTClientPDU``, for procedures that build PDUs
    /// generically. Commands and confirmations are not requests: they throw.
    mutating func sendRequestPDU(_ pdu: ATTClientPDU, into buffer: inout [UInt8], at now: MonotonicTime) throws(ATTBearerError) {
        switch pdu {
        case let .exchangeMTURequest(p): try sendRequest(p, into: &buffer, at: now)
        case let .findInformationRequest(p): try sendRequest(p, into: &buffer, at: now)
        case let .findByTypeValueRequest(p): try sendRequest(p, into: &buffer, at: now)
        case let .readByTypeRequest(p): try sendRequest(p, into: &buffer, at: now)
        case let .readRequest(p): try sendRequest(p, into: &buffer, at: now)
        case let .readBlobRequest(p): try sendRequest(p, into: &buffer, at: now)
        case let .readMultipleRequest(p): try sendRequest(p, into: &buffer, at: now)
        case let .readByGroupTypeRequest(p): try sendRequest(p, into: &buffer, at: now)
        case let .writeRequest(p): try sendRequest(p, into: &buffer, at: now)
        case let .prepareWriteRequest(p): try sendRequest(p, into: &buffer, at: now)
        case let .executeWriteRequest(p): try sendRequest(p, into: &buffer, at: now)
        case let .readMultipleVariableRequest(p): try sendRequest(p, into: &buffer, at: now)
        case .writeCommand, .signedWriteCommand, .handleValueConfirmation: throw .wrongKind(pdu.opcode)
        }
    }

    /// Sends a Write Command or Signed Write Command given as an ``ATTClientPDU``.
    mutating func sendCommandPDU(_ pdu: ATTClientPDU, into buffer: inout [UInt8]) throws(ATTBearerError) {
        switch pdu {
        case let .writeCommand(p): try sendCommand(p, into: &buffer)
        case let .signedWriteCommand(p): try sendCommand(p, into: &buffer)
        default: throw .wrongKind(pdu.opcode)
        }
    }
}
