import ATT

/// Write Long Characteristic Values (Vol 3 Part G §4.9.4), Write Long Characteristic
/// Descriptors (§4.12.4) and Reliable Writes (§4.9.5): Prepare Write parts of up to
/// ATT_MTU − 5 bytes, then Execute Write.
///
/// Any Error Response to a prepare cancels the queue with Execute Write (flags 0x00) and
/// reports the first error. In a reliable write every echoed part is compared with what
/// was sent; a difference cancels too, and is reported as a protocol violation.
struct WriteLongCharacteristicValuesProcedure: ClientProcedure {
    struct Part: Sendable {
        var handle: AttributeHandle
        var offset: UInt16
        var value: [UInt8]
    }

    let writes: [PreparedWrite]
    let reliable: Bool
    var parts: [Part] = []
    var sent = 0
    /// Set once cancelling: the failure to report after the Execute Write Response.
    var failure: GATTClientError?
    var executing = false

    init(writes: [PreparedWrite], reliable: Bool) {
        self.writes = writes
        self.reliable = reliable
    }

    mutating func start(_ context: ProcedureContext) -> ProcedureStep {
        guard !writes.isEmpty else { return .fail(.invalidArgument("nothing to write")) }
        let size = context.mtu - 5
        for w in writes {
            guard Int(w.offset) + w.value.count <= 512 else {
                return .fail(.invalidArgument("value ends at \(Int(w.offset) + w.value.count), past the 512-byte maximum"))
            }
            var at = 0
            repeat {
                let end = min(w.value.count, at + size)
                parts.append(Part(handle: w.handle, offset: w.offset + UInt16(at), value: Array(w.value[at..<end])))
                at = end
            } while at < w.value.count
        }
        return prepareNext()
    }

    mutating func prepareNext() -> ProcedureStep {
        let p = parts[sent]
        sent += 1
        return .request(.prepareWriteRequest(PrepareWriteRequest(handle: p.handle, offset: p.offset, partValue: p.value)))
    }

    mutating func cancel(_ error: GATTClientError) -> ProcedureStep {
        failure = error
        executing = true
        return .request(.executeWriteRequest(ExecuteWriteRequest(flags: .cancel)))
    }

    func cleanupRequest() -> ATTClientPDU? {
        sent > 0 && !executing ? .executeWriteRequest(ExecuteWriteRequest(flags: .cancel)) : nil
    }

    mutating func receive(_ pdu: ATTServerPDU, bytes: ArraySlice<UInt8>, _ context: ProcedureContext) -> ProcedureStep {
        if executing {
            switch pdu {
            case .executeWriteResponse:
                return .finish(failure.map { .failure($0) } ?? .success(.done))
            case let .errorResponse(e):
                return .fail(failure ?? e.clientError)
            default:
                return .violation(.unexpectedResponse(expected: .executeWriteResponse), pdu, bytes)
            }
        }
        switch pdu {
        case let .prepareWriteResponse(r):
            let p = parts[sent - 1]
            if reliable && (r.handle != p.handle || r.offset != p.offset || !r.partValue.elementsEqual(p.value)) {
                return cancel(.protocolViolation(ProtocolViolation(.preparedWriteMismatch(handle: p.handle, offset: p.offset),
                                                                   opcode: pdu.opcode, pdu: Array(bytes))))
            }
            if sent < parts.count { return prepareNext() }
            executing = true
            return .request(.executeWriteRequest(ExecuteWriteRequest(flags: .write)))
        case let .errorResponse(e):
            return cancel(e.clientError)
        default:
            return cancel(.protocolViolation(ProtocolViolation(.unexpectedResponse(expected: .prepareWriteResponse),
                                                               opcode: pdu.opcode, pdu: Array(bytes))))
        }
    }
}
