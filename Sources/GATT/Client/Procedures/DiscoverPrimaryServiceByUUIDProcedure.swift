import ATT

/// Discover Primary Service by Service UUID (Vol 3 Part G §4.4.2): Find By Type Value on
/// «Primary Service» with the UUID as value, continuing after each Group End Handle.
struct DiscoverPrimaryServiceByUUIDProcedure: ClientProcedure {
    let uuid: BluetoothUUID
    let range: AttributeHandleRange
    var next: AttributeHandle
    var services: [DiscoveredService] = []

    init(uuid: BluetoothUUID, range: AttributeHandleRange) {
        self.uuid = uuid
        self.range = range
        self.next = range.start
    }

    func start(_ context: ProcedureContext) -> ProcedureStep {
        guard range.isValid else { return .fail(.invalidArgument("invalid handle range \(range)")) }
        return request()
    }

    func request() -> ProcedureStep {
        // The value is the UUID as given: a 16-bit UUID in 2 bytes, anything else in 16.
        let value = uuid.attForm.littleEndianBytes
        return .request(.findByTypeValueRequest(FindByTypeValueRequest(
            range: AttributeHandleRange(start: next, end: range.end), attributeType: 0x2800, value: value[...])))
    }

    mutating func receive(_ pdu: ATTServerPDU, bytes: ArraySlice<UInt8>, _ context: ProcedureContext) -> ProcedureStep {
        switch pdu {
        case let .errorResponse(e):
            if e.errorCode == .attributeNotFound { return .finish(.success(.services(services))) }
            return .fail(e.clientError)
        case let .findByTypeValueResponse(r):
            var lastEnd = AttributeHandle.reserved
            for e in r.entries {
                let group = AttributeHandleRange(start: e.foundHandle, end: e.groupEndHandle)
                if e.foundHandle < next { return .violation(.nonIncreasingHandle(e.foundHandle, previous: next), pdu, bytes) }
                if e.foundHandle > range.end { return .violation(.handleOutOfRange(e.foundHandle, range), pdu, bytes) }
                if let previous = services.last, e.foundHandle <= previous.handleRange.end {
                    return .violation(.overlappingRange(group, previous: previous.handleRange), pdu, bytes)
                }
                services.append(DiscoveredService(uuid: uuid, handleRange: group, isPrimary: true))
                lastEnd = e.groupEndHandle
            }
            guard lastEnd < range.end, let successor = lastEnd.successor else {
                return .finish(.success(.services(services)))
            }
            next = successor
            return request()
        default:
            return .violation(.unexpectedResponse(expected: .findByTypeValueResponse), pdu, bytes)
        }
    }
}
