import ATT

/// Discover All Characteristic Descriptors (Vol 3 Part G §4.7.1): Find Information over
/// the characteristic's descriptor range, continuing after each last handle.
struct DiscoverDescriptorsProcedure: ClientProcedure {
    let range: AttributeHandleRange
    var next: AttributeHandle
    var descriptors: [DiscoveredDescriptor] = []

    init(range: AttributeHandleRange) {
        self.range = range
        self.next = range.start
    }

    func start(_ context: ProcedureContext) -> ProcedureStep {
        guard range.isValid else { return .fail(.invalidArgument("invalid handle range \(range)")) }
        return request()
    }

    func request() -> ProcedureStep {
        .request(.findInformationRequest(FindInformationRequest(range: AttributeHandleRange(start: next, end: range.end))))
    }

    mutating func receive(_ pdu: ATTServerPDU, bytes: ArraySlice<UInt8>, _ context: ProcedureContext) -> ProcedureStep {
        switch pdu {
        case let .errorResponse(e):
            if e.errorCode == .attributeNotFound { return .finish(.success(.descriptors(descriptors))) }
            return .fail(e.clientError)
        case let .findInformationResponse(r):
            var last = AttributeHandle.reserved
            for e in r.entries {
                let previous = descriptors.last?.handle ?? .reserved
                if e.handle < next || e.handle <= previous {
                    return .violation(.nonIncreasingHandle(e.handle, previous: max(previous, next)), pdu, bytes)
                }
                if e.handle > range.end { return .violation(.handleOutOfRange(e.handle, range), pdu, bytes) }
                descriptors.append(DiscoveredDescriptor(handle: e.handle, uuid: e.type))
                last = e.handle
            }
            guard last < range.end, let successor = last.successor else { return .finish(.success(.descriptors(descriptors))) }
            next = successor
            return request()
        default:
            return .violation(.unexpectedResponse(expected: .findInformationResponse), pdu, bytes)
        }
    }
}
