import ATT

/// Find Included Services (Vol 3 Part G §4.5.1): Read By Type on «Include» across the
/// range. An include of a 128-bit service carries no UUID (a 6-byte value), so the client
/// reads the included service's declaration to learn it, before going on.
struct FindIncludedServicesProcedure: ClientProcedure {
    let range: AttributeHandleRange
    var next: AttributeHandle
    var includes: [DiscoveredInclude] = []
    /// Indexes into `includes` still waiting for their 128-bit UUID.
    var unresolved: [Int] = []
    var lastHandle = AttributeHandle.reserved

    init(range: AttributeHandleRange) {
        self.range = range
        self.next = range.start
    }

    func start(_ context: ProcedureContext) -> ProcedureStep {
        guard range.isValid else { return .fail(.invalidArgument("invalid handle range \(range)")) }
        return readByType()
    }

    func readByType() -> ProcedureStep {
        .request(.readByTypeRequest(ReadByTypeRequest(range: AttributeHandleRange(start: next, end: range.end), attributeType: GATTAttributeType.include)))
    }

    func continueOrFinish() -> ProcedureStep {
        if let index = unresolved.first {
            return .request(.readRequest(ReadRequest(handle: includes[index].serviceRange.start)))
        }
        if lastHandle >= range.end { return .finish(.success(.includes(includes))) }
        return readByType()
    }

    mutating func receive(_ pdu: ATTServerPDU, bytes: ArraySlice<UInt8>, _ context: ProcedureContext) -> ProcedureStep {
        switch pdu {
        case let .errorResponse(e):
            if e.errorCode == .attributeNotFound && unresolved.isEmpty { return .finish(.success(.includes(includes))) }
            return .fail(e.clientError)
        case let .readResponse(r):
            guard let index = unresolved.first else { return .violation(.unexpectedResponse(expected: .readByTypeResponse), pdu, bytes) }
            guard r.value.count == 16, let uuid = BluetoothUUID(littleEndian: r.value) else {
                return .violation(.invalidValueLength(r.value.count, expected: 16), pdu, bytes)
            }
            includes[index].uuid = uuid
            unresolved.removeFirst()
            return continueOrFinish()
        case let .readByTypeResponse(r):
            guard unresolved.isEmpty else { return .violation(.unexpectedResponse(expected: .readResponse), pdu, bytes) }
            guard r.length == 8 || r.length == 6 else { return .violation(.invalidEntryLength(Int(r.length)), pdu, bytes) }
            for e in r.entries {
                if e.handle < next || e.handle <= lastHandle {
                    return .violation(.nonIncreasingHandle(e.handle, previous: max(next, lastHandle)), pdu, bytes)
                }
                if e.handle > range.end { return .violation(.handleOutOfRange(e.handle, range), pdu, bytes) }
                let v = e.value
                let s = v.startIndex
                let start = AttributeHandle(UInt16(v[s]) | UInt16(v[s + 1]) << 8)
                let end = AttributeHandle(UInt16(v[s + 2]) | UInt16(v[s + 3]) << 8)
                let group = AttributeHandleRange(start: start, end: end)
                guard group.isValid else { return .violation(.handleOutOfRange(start, group), pdu, bytes) }
                if r.length == 8 {
                    // The length check leaves two bytes here; the guard keeps a decoder
                    // change from ever trapping on a peer's bytes.
                    guard let uuid = BluetoothUUID(littleEndian: v[(s + 4)...]) else {
                        return .violation(.invalidEntryLength(Int(r.length)), pdu, bytes)
                    }
                    includes.append(DiscoveredInclude(handle: e.handle, serviceRange: group, uuid: uuid))
                } else {
                    unresolved.append(includes.count)
                    includes.append(DiscoveredInclude(handle: e.handle, serviceRange: group, uuid: BluetoothUUID(0)))
                }
                lastHandle = e.handle
            }
            if let successor = lastHandle.successor { next = successor } else { lastHandle = range.end }
            return continueOrFinish()
        default:
            return .violation(.unexpectedResponse(expected: .readByTypeResponse), pdu, bytes)
        }
    }
}
