import ATT

/// The attribute handles an ATT PDU carries in its own bytes, and its attribute value,
/// for comparison with tshark's btatt.handle and btatt.value fields. (tshark also lists
/// handles it infers from the matching request, so ours must be a subset of its list.)
func explicitHandles(_ pdu: ATTPDU) -> [UInt16] {
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
func attributeValue(_ pdu: ATTPDU) -> [UInt8]? {
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
