import ATT

/// Read Long Characteristic Value (Vol 3 Part G §4.8.3) and Read Long Characteristic
/// Descriptor (§4.12.2). From offset 0 the first part comes from a Read Request (as
/// BlueZ and the conformance vectors do), then Read Blob continues while each part fills
/// the response (ATT_MTU − 1 bytes).
///
/// The value may not grow past the 512-byte attribute maximum (Vol 3 Part F §3.2.9), so
/// a server that keeps sending full parts cannot make the client grow without bound.
struct ReadLongCharacteristicValueProcedure: ClientProcedure {
    static let maximumValueLength = 512

    let handle: AttributeHandle
    let startOffset: UInt16
    var value: [UInt8] = []

    init(handle: AttributeHandle, offset: UInt16, prefix: [UInt8] = []) {
        self.handle = handle
        self.startOffset = offset
        self.value = prefix
    }

    var nextOffset: Int { Int(startOffset) + value.count }

    func start(_ context: ProcedureContext) -> ProcedureStep {
        nextOffset == 0 ? .request(.readRequest(ReadRequest(handle: handle))) : blob()
    }

    func blob() -> ProcedureStep {
        .request(.readBlobRequest(ReadBlobRequest(handle: handle, offset: UInt16(truncatingIfNeeded: nextOffset))))
    }

    mutating func receive(_ pdu: ATTServerPDU, bytes: ArraySlice<UInt8>, _ context: ProcedureContext) -> ProcedureStep {
        let part: ArraySlice<UInt8>
        switch pdu {
        case let .readResponse(r): part = r.value
        case let .readBlobResponse(r): part = r.value
        case let .errorResponse(e):
            // After a first full part, a value that ended exactly on the part boundary may
            // be answered with Attribute Not Long or Invalid Offset: the value is complete.
            if nextOffset > Int(startOffset), e.errorCode == .attributeNotLong || e.errorCode == .invalidOffset {
                return .finish(.success(.value(value)))
            }
            return .fail(e.clientError)
        default:
            return .violation(.unexpectedResponse(expected: value.isEmpty && startOffset == 0 ? .readResponse : .readBlobResponse), pdu, bytes)
        }
        value.append(contentsOf: part)
        if nextOffset > Self.maximumValueLength { return .violation(.valueTooLong(nextOffset), pdu, bytes) }
        if part.count < context.mtu - 1 || nextOffset == Self.maximumValueLength { return .finish(.success(.value(value))) }
        return blob()
    }
}
