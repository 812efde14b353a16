import ATT

/// Discover All Primary Services (Vol 3 Part G §4.4.1), and the same walk over
/// «Secondary Service» declarations: Read By Group Type from the start of the range,
/// continuing after each last End Group Handle until Attribute Not Found or the end of
/// the range.
///
/// Every group must start after the previous one ended and inside the range, so each
/// round trip moves forward and a hostile server cannot make the walk loop.
struct DiscoverServicesProcedure: ClientProcedure {
    let range: AttributeHandleRange
    let isPrimary: Bool
    var next: AttributeHandle
    var services: [DiscoveredService] = []

    init(range: AttributeHandleRange, primary: Bool) {
        self.range = range
        self.isPrimary = primary
        self.next = range.start
    }

    func start(_ context: ProcedureContext) -> ProcedureStep {
        guard range.isValid else { return .fail(.invalidArgument("invalid handle range \(range)")) }
        return request()
    }

    func request() -> ProcedureStep {
        let type = isPrimary ? GATTAttributeType.primaryService : GATTAttributeType.secondaryService
        return .request(.readByGroupTypeRequest(ReadByGroupTypeRequest(range: AttributeHandleRange(start: next, end: range.end), attributeType: type)))
    }

    mutating func receive(_ pdu: ATTServerPDU, bytes: ArraySlice<UInt8>, _ context: ProcedureContext) -> ProcedureStep {
        switch pdu {
        case let .errorResponse(e):
            // Attribute Not Found ends discovery normally; a server without secondary
            // services may also answer Unsupported Group Type.
            if e.errorCode == .attributeNotFound || (!isPrimary && e.errorCode == .unsupportedGroupType) {
                return .finish(.success(.services(services)))
            }
            return .fail(e.clientError)
        case let .readByGroupTypeResponse(r):
            guard r.length == 6 || r.length == 20 else { return .violation(.invalidEntryLength(Int(r.length)), pdu, bytes) }
            var lastEnd = AttributeHandle.reserved
            for e in r.entries {
                let group = AttributeHandleRange(start: e.handle, end: e.endGroupHandle)
                if e.handle < next { return .violation(.nonIncreasingHandle(e.handle, previous: next), pdu, bytes) }
                if e.handle > range.end { return .violation(.handleOutOfRange(e.handle, range), pdu, bytes) }
                if let previous = services.last, e.handle <= previous.handleRange.end {
                    return .violation(.overlappingRange(group, previous: previous.handleRange), pdu, bytes)
                }
                guard let uuid = BluetoothUUID(littleEndian: e.value) else {
                    return .violation(.invalidEntryLength(Int(r.length)), pdu, bytes)
                }
                services.append(DiscoveredService(uuid: uuid, handleRange: group, isPrimary: isPrimary))
                lastEnd = e.endGroupHandle
            }
            guard lastEnd < range.end, let successor = lastEnd.successor else {
                return .finish(.success(.services(services)))
            }
            next = successor
            return request()
        default:
            return .violation(.unexpectedResponse(expected: .readByGroupTypeResponse), pdu, bytes)
        }
    }
}
