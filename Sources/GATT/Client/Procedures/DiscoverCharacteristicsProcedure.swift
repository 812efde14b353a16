import ATT

/// Discover All Characteristics of a Service (Vol 3 Part G §4.6.1), and Discover
/// Characteristics by UUID (§4.6.2), which is the same walk keeping only one UUID: Read
/// By Type on «Characteristic», continuing after each last declaration handle.
///
/// A characteristic ends where the next declaration begins, and the last one at the end
/// of the range.
struct DiscoverCharacteristicsProcedure: ClientProcedure {
    let range: AttributeHandleRange
    let uuid: BluetoothUUID?
    var next: AttributeHandle
    var characteristics: [DiscoveredCharacteristic] = []

    init(range: AttributeHandleRange, uuid: BluetoothUUID? = nil) {
        self.range = range
        self.uuid = uuid
        self.next = range.start
    }

    func start(_ context: ProcedureContext) -> ProcedureStep {
        guard range.isValid else { return .fail(.invalidArgument("invalid handle range \(range)")) }
        return request()
    }

    func request() -> ProcedureStep {
        .request(.readByTypeRequest(ReadByTypeRequest(range: AttributeHandleRange(start: next, end: range.end), attributeType: GATTAttributeType.characteristic)))
    }

    func finish() -> ProcedureStep {
        var result = characteristics
        for i in result.indices {
            let nextDeclaration = i + 1 < result.count ? result[i + 1].declarationHandle.rawValue - 1 : range.end.rawValue
            result[i].endHandle = AttributeHandle(max(nextDeclaration, result[i].valueHandle.rawValue))
        }
        if let uuid { result = result.filter { $0.uuid == uuid } }
        return .finish(.success(.characteristics(result)))
    }

    mutating func receive(_ pdu: ATTServerPDU, bytes: ArraySlice<UInt8>, _ context: ProcedureContext) -> ProcedureStep {
        switch pdu {
        case let .errorResponse(e):
            if e.errorCode == .attributeNotFound { return finish() }
            return .fail(e.clientError)
        case let .readByTypeResponse(r):
            guard r.length == 7 || r.length == 21 else { return .violation(.invalidEntryLength(Int(r.length)), pdu, bytes) }
            var last = AttributeHandle.reserved
            for e in r.entries {
                let previous = characteristics.last?.declarationHandle ?? .reserved
                if e.handle < next || e.handle <= previous {
                    return .violation(.nonIncreasingHandle(e.handle, previous: max(previous, next)), pdu, bytes)
                }
                if e.handle > range.end { return .violation(.handleOutOfRange(e.handle, range), pdu, bytes) }
                let v = e.value
                let s = v.startIndex
                let valueHandle = AttributeHandle(UInt16(v[s + 1]) | UInt16(v[s + 2]) << 8)
                // The value attribute follows its declaration (Vol 3 Part G §3.3).
                if valueHandle <= e.handle {
                    return .violation(.nonIncreasingHandle(valueHandle, previous: e.handle), pdu, bytes)
                }
                characteristics.append(DiscoveredCharacteristic(
                    declarationHandle: e.handle, properties: CharacteristicProperties(rawValue: v[s]),
                    valueHandle: valueHandle, uuid: BluetoothUUID(littleEndian: v[(s + 3)...])!))
                last = e.handle
            }
            guard last < range.end, let successor = last.successor else { return finish() }
            next = successor
            return request()
        default:
            return .violation(.unexpectedResponse(expected: .readByTypeResponse), pdu, bytes)
        }
    }
}
