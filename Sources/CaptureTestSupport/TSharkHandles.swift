import ATT

/// The attribute handles an ATT PDU carries in its own bytes, and its attribute value,
/// for comparison with tshark's btatt.handle and btatt.value fields. (tshark also lists
/// handles it infers from the matching request, so ours must be a subset of its list.)
public func explicitHandles(_ pdu: ATTPDU) -> [UInt16] {
    switch pdu {
    case let .errorResponse(p): return [p.handle.rawValue]
    case let .readRequest(p): return [p.handle.rawValue]
    case let .readBlobRequest(p): return [p.handle.rawValue]
    case let .writeRequest(p): return [p.handle.rawValue]
    case let .writeCommand(p): return [p.handle.rawValue]
    case let .handleValueNotification(p): return [p.handle.rawValue]
    case let .handleValueIndication(p): return [p.handle.rawValue]
    case let .prepareWriteRequest(p): return [p.handle.rawValue]
    case let .prepareWriteResponse(p): return [p.handle.rawValue]
    case let .findInformationResponse(p): return p.entries.map(\.handle.rawValue)
    case let .findByTypeValueResponse(p): return p.entries.map(\.foundHandle.rawValue)
    case let .readByTypeResponse(p): return p.entries.map(\.handle.rawValue)
    case let .readByGroupTypeResponse(p): return p.entries.map(\.handle.rawValue)
    case let .readMultipleRequest(p): return p.handles.map(\.rawValue)
    default: return []
    }
}

/// The value field of PDUs that carry a single attribute value.
public func attributeValue(_ pdu: ATTPDU) -> [UInt8]? {
    switch pdu {
    case let .readResponse(p): return Array(p.value)
    case let .readBlobResponse(p): return Array(p.value)
    case let .writeRequest(p): return Array(p.value)
    case let .writeCommand(p): return Array(p.value)
    case let .handleValueNotification(p): return Array(p.value)
    case let .handleValueIndication(p): return Array(p.value)
    case let .prepareWriteRequest(p): return Array(p.partValue)
    case let .prepareWriteResponse(p): return Array(p.partValue)
    case let .findByTypeValueRequest(p): return Array(p.value)
    default: return nil
    }
}

/// The handles tshark lists for a PDU: those in its own bytes, for a response or
/// confirmation also those of the request or indication it answers (tshark tracks
/// transactions), and for a Read By Type Response carrying characteristic declarations
/// also the value handles inside them.
public func tsharkStyleHandles(_ pdu: ATTPDU, answering request: ATTPDU?) -> Set<UInt16> {
    var handles = Set(explicitHandles(pdu))
    if let request, pdu.opcode.kind == .response || pdu.opcode.kind == .confirmation {
        if case .errorResponse = pdu {} else { handles.formUnion(explicitHandles(request)) }
    }
    if case let .readByTypeResponse(r) = pdu, case let .readByTypeRequest(q)? = request, q.attributeType == BluetoothUUID(0x2803) {
        for e in r.entries where e.value.count == 5 || e.value.count == 19 {
            let s = e.value.startIndex
            handles.insert(UInt16(e.value[s + 1]) | UInt16(e.value[s + 2]) << 8)
        }
    }
    return handles
}
