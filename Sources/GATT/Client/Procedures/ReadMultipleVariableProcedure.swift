import ATT

/// Read Multiple Variable Length Characteristic Values (Vol 3 Part G §4.8.5). When the
/// response had to be cut at ATT_MTU − 1, the last value arrives truncated and later ones
/// not at all; the client completes them with Read Blob / Read Long, so the caller always
/// gets whole values.
struct ReadMultipleVariableProcedure: ClientProcedure {
    let handles: [AttributeHandle]
    var values: [[UInt8]] = []
    /// The value being completed with a long read, by index.
    var completing: (index: Int, read: ReadLongCharacteristicValueProcedure, expected: Int?)?

    init(handles: [AttributeHandle]) { self.handles = handles }

    func start(_ context: ProcedureContext) -> ProcedureStep {
        guard handles.count >= 2 else { return .fail(.invalidArgument("Read Multiple Variable needs at least two handles")) }
        return .request(.readMultipleVariableRequest(ReadMultipleVariableRequest(handles: handles)))
    }

    mutating func completeNext(_ context: ProcedureContext) -> ProcedureStep {
        // The first value that is short of its announced length, or missing.
        if let (index, expected) = incomplete() {
            let have = index < values.count ? values[index] : []
            if index >= values.count { values.append([]) }
            let read = ReadLongCharacteristicValueProcedure(handle: handles[index], offset: UInt16(have.count))
            completing = (index, read, expected)
            return read.start(context)
        }
        return .finish(.success(.values(values)))
    }

    var lengths: [Int?] = []

    func incomplete() -> (Int, Int?)? {
        for i in handles.indices {
            if i >= values.count { return (i, nil) }
            if let expected = lengths[i], values[i].count < expected { return (i, expected) }
        }
        return nil
    }

    mutating func receive(_ pdu: ATTServerPDU, bytes: ArraySlice<UInt8>, _ context: ProcedureContext) -> ProcedureStep {
        if let (index, original, _) = completing {
            var read = original
            switch read.receive(pdu, bytes: bytes, context) {
            case .finish(.success(.value(let rest))):
                values[index].append(contentsOf: rest)
                lengths[index] = nil
                completing = nil
                return completeNext(context)
            case .finish(let other):
                return .finish(other)
            case let step:
                completing?.read = read
                return step
            }
        }
        switch pdu {
        case let .readMultipleVariableResponse(r):
            for e in r.entries where values.count < handles.count {
                values.append(Array(e.value))
                lengths.append(Int(e.length))
            }
            while lengths.count < handles.count { lengths.append(nil) }
            return completeNext(context)
        case let .errorResponse(e):
            return .fail(e.clientError)
        default:
            return .violation(.unexpectedResponse(expected: .readMultipleVariableResponse), pdu, bytes)
        }
    }
}
