import ATT

/// Read Using Characteristic UUID (Vol 3 Part G §4.8.2): Read By Type with the
/// characteristic UUID, continuing after the last handle found so that every matching
/// value in the range is read. Attribute Not Found on the first request is the
/// procedure's error; later, it only means there is nothing more.
struct ReadUsingCharacteristicUUIDProcedure: ClientProcedure {
    let uuid: BluetoothUUID
    let range: AttributeHandleRange
    var next: AttributeHandle
    var values: [HandleValue] = []
    /// Stop after the first response: for single-instance characteristics such as the
    /// Database Hash, where a second round trip could only find nothing.
    let firstResponseOnly: Bool

    init(uuid: BluetoothUUID, range: AttributeHandleRange, firstResponseOnly: Bool = false) {
        self.uuid = uuid
        self.range = range
        self.next = range.start
        self.firstResponseOnly = firstResponseOnly
    }

    func start(_ context: ProcedureContext) -> ProcedureStep {
        guard range.isValid else { return .fail(.invalidArgument("invalid handle range \(range)")) }
        return request()
    }

    func request() -> ProcedureStep {
        .request(.readByTypeRequest(ReadByTypeRequest(range: AttributeHandleRange(start: next, end: range.end), attributeType: uuid)))
    }

    mutating func receive(_ pdu: ATTServerPDU, bytes: ArraySlice<UInt8>, _ context: ProcedureContext) -> ProcedureStep {
        switch pdu {
        case let .errorResponse(e):
            if e.errorCode == .attributeNotFound && !values.isEmpty { return .finish(.success(.handleValues(values))) }
            return .fail(e.clientError)
        case let .readByTypeResponse(r):
            var last = AttributeHandle.reserved
            for e in r.entries {
                let previous = values.last?.handle ?? .reserved
                if e.handle < next || e.handle <= previous {
                    return .violation(.nonIncreasingHandle(e.handle, previous: max(previous, next)), pdu, bytes)
                }
                if e.handle > range.end { return .violation(.handleOutOfRange(e.handle, range), pdu, bytes) }
                values.append(HandleValue(handle: e.handle, value: Array(e.value)))
                last = e.handle
            }
            guard !firstResponseOnly, last < range.end, let successor = last.successor else { return .finish(.success(.handleValues(values))) }
            next = successor
            return request()
        default:
            return .violation(.unexpectedResponse(expected: .readByTypeResponse), pdu, bytes)
        }
    }
}
