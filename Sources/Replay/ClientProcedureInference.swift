import ATT
import Capture

/// Groups a captured client's requests into the GATT procedures they carried out.
///
/// Discovery procedures continue while each next request starts just after the last
/// handle the previous response returned, with the same type and end handle (Vol 3 Part
/// G §4.4–4.7); a Read followed by Read Blobs of the same handle is Read Long; Prepare
/// Writes up to the Execute Write are one long or reliable write.
public enum ClientProcedureInference {
    public static func procedures(in conversation: ATTConversation) -> [CapturedProcedure] {
        let mtu = conversation.mtu
        var responseTo: [Int: ATTPDU] = [:]
        for t in conversation.transactions {
            if let r = t.response, case let .success(pdu) = conversation.pdus[r].pdu { responseTo[t.request] = pdu }
        }
        var procedures: [CapturedProcedure] = []
        // The procedure still open, with the handle the next continuation must start at.
        var open: (procedure: CapturedProcedure, next: UInt16?)?
        var prepared: (parts: [CapturedProcedure.PreparedPart], requests: [Int])?

        func close() {
            if let o = open { procedures.append(o.procedure) }
            open = nil
        }

        for (i, captured) in conversation.pdus.enumerated() {
            guard conversation.sender(of: i) == .client, let raw = captured.opcode,
                  ATTOpcode(raw).kind != .confirmation else { continue }
            guard case let .success(pdu) = captured.pdu else {
                close()
                procedures.append(CapturedProcedure(kind: .other(ATTOpcode(raw)), requests: [i]))
                continue
            }
            let response = responseTo[i]
            // A continuation of the open discovery or long read?
            if let o = open, let expected = o.next, continues(o.procedure.kind, with: pdu, at: expected) {
                open!.procedure.requests.append(i)
                if case let .readValue(h) = o.procedure.kind { open!.procedure.kind = .readLongValue(h, offset: 0) }
                open!.next = nextStart(of: pdu, response: response, mtu: mtu)
                if open!.next == nil { close() }
                continue
            }
            close()
            switch pdu {
            case let .prepareWriteRequest(w):
                var p = prepared ?? ([], [])
                p.parts.append(.init(handle: w.handle, offset: w.offset, value: Array(w.partValue)))
                p.requests.append(i)
                prepared = p
                continue
            case let .executeWriteRequest(e):
                let p = prepared ?? ([], [])
                prepared = nil
                procedures.append(CapturedProcedure(kind: e.flags == .write ? writeKind(p.parts, mtu: mtu) : .cancelledWrites(p.parts),
                                                    requests: p.requests + [i]))
                continue
            default:
                break
            }
            guard let kind = kind(of: pdu) else {
                procedures.append(CapturedProcedure(kind: .other(pdu.opcode), requests: [i]))
                continue
            }
            let procedure = CapturedProcedure(kind: kind, requests: [i])
            if let next = nextStart(of: pdu, response: response, mtu: mtu), isContinuable(kind) {
                open = (procedure, next)
            } else {
                procedures.append(procedure)
            }
        }
        close()
        if let p = prepared { procedures.append(CapturedProcedure(kind: .cancelledWrites(p.parts), requests: p.requests)) }
        return procedures.sorted { ($0.requests.first ?? 0) < ($1.requests.first ?? 0) }
    }

    static func kind(of pdu: ATTPDU) -> CapturedProcedure.Kind? {
        switch pdu {
        case let .exchangeMTURequest(r): return .exchangeMTU(clientRxMTU: r.clientRxMTU)
        case let .readByGroupTypeRequest(r):
            if r.attributeType == BluetoothUUID(0x2800) { return .discoverAllPrimaryServices(r.range) }
            if r.attributeType == BluetoothUUID(0x2801) { return .discoverSecondaryServices(r.range) }
            return nil
        case let .findByTypeValueRequest(r) where r.attributeType == 0x2800:
            guard let uuid = BluetoothUUID(littleEndian: r.value) else { return nil }
            return .discoverPrimaryServices(uuid, r.range)
        case let .readByTypeRequest(r):
            if r.attributeType == BluetoothUUID(0x2802) { return .findIncludedServices(r.range) }
            if r.attributeType == BluetoothUUID(0x2803) { return .discoverAllCharacteristics(r.range) }
            return .readUsingCharacteristicUUID(r.attributeType, r.range)
        case let .findInformationRequest(r): return .discoverDescriptors(r.range)
        case let .readRequest(r): return .readValue(r.handle)
        case let .readBlobRequest(r): return .readLongValue(r.handle, offset: r.offset)
        case let .readMultipleRequest(r): return .readMultiple(Array(r.handles))
        case let .readMultipleVariableRequest(r): return .readMultipleVariable(Array(r.handles))
        case let .writeRequest(w): return .writeValue(w.handle, Array(w.value))
        case let .writeCommand(w): return .writeWithoutResponse(w.handle, Array(w.value))
        case let .signedWriteCommand(w): return .signedWriteWithoutResponse(w.handle, Array(w.value))
        default: return nil
        }
    }

    static func isContinuable(_ kind: CapturedProcedure.Kind) -> Bool {
        switch kind {
        case .discoverAllPrimaryServices, .discoverPrimaryServices, .discoverSecondaryServices, .findIncludedServices,
             .discoverAllCharacteristics, .discoverDescriptors, .readValue, .readLongValue:
            return true
        default:
            return false
        }
    }

    /// Where the next request of the same procedure would start, or nil when the response
    /// ends the procedure (an error, the end of the range, or a short read).
    static func nextStart(of request: ATTPDU, response: ATTPDU?, mtu: Int) -> UInt16? {
        guard let response else { return nil }
        func after(_ last: AttributeHandle?, end: AttributeHandle) -> UInt16? {
            guard let last, last < end, last.rawValue < 0xFFFF else { return nil }
            return last.rawValue + 1
        }
        switch (request, response) {
        case let (.readByGroupTypeRequest(q), .readByGroupTypeResponse(p)):
            return after(p.entries.map(\.endGroupHandle).last, end: q.range.end)
        case let (.findByTypeValueRequest(q), .findByTypeValueResponse(p)):
            return after(p.entries.map(\.groupEndHandle).last, end: q.range.end)
        case let (.readByTypeRequest(q), .readByTypeResponse(p)):
            guard q.attributeType == BluetoothUUID(0x2802) || q.attributeType == BluetoothUUID(0x2803) else { return nil }
            return after(p.entries.map(\.handle).last, end: q.range.end)
        case let (.findInformationRequest(q), .findInformationResponse(p)):
            return after(p.entries.map(\.handle).last, end: q.range.end)
        // A read filling the MTU continues with a Read Blob at the bytes received so far
        // (Vol 3 Part G §4.8.3); a shorter one completes the value.
        case let (.readRequest, .readResponse(p)):
            return p.value.count == mtu - 1 ? UInt16(truncatingIfNeeded: p.value.count) : nil
        case let (.readBlobRequest(q), .readBlobResponse(p)):
            let end = Int(q.offset) + p.value.count
            return p.value.count == mtu - 1 && end <= 0xFFFF ? UInt16(end) : nil
        default:
            return nil
        }
    }

    static func continues(_ kind: CapturedProcedure.Kind, with pdu: ATTPDU, at start: UInt16) -> Bool {
        switch (kind, pdu) {
        case let (.discoverAllPrimaryServices(r), .readByGroupTypeRequest(q)):
            return q.attributeType == BluetoothUUID(0x2800) && q.range.start.rawValue == start && q.range.end == r.end
        case let (.discoverSecondaryServices(r), .readByGroupTypeRequest(q)):
            return q.attributeType == BluetoothUUID(0x2801) && q.range.start.rawValue == start && q.range.end == r.end
        case let (.discoverPrimaryServices(u, r), .findByTypeValueRequest(q)):
            return q.attributeType == 0x2800 && BluetoothUUID(littleEndian: q.value) == u
                && q.range.start.rawValue == start && q.range.end == r.end
        case let (.findIncludedServices(r), .readByTypeRequest(q)):
            return q.attributeType == BluetoothUUID(0x2802) && q.range.start.rawValue == start && q.range.end == r.end
        case let (.discoverAllCharacteristics(r), .readByTypeRequest(q)):
            return q.attributeType == BluetoothUUID(0x2803) && q.range.start.rawValue == start && q.range.end == r.end
        case let (.discoverDescriptors(r), .findInformationRequest(q)):
            return q.range.start.rawValue == start && q.range.end == r.end
        case let (.readValue(h), .readBlobRequest(q)), let (.readLongValue(h, _), .readBlobRequest(q)):
            return q.handle == h && q.offset == start
        default:
            return false
        }
    }

    /// A long write splits one value into parts of ATT_MTU − 5 bytes at contiguous offsets;
    /// anything else was a reliable write of parts the application chose.
    static func writeKind(_ parts: [CapturedProcedure.PreparedPart], mtu: Int) -> CapturedProcedure.Kind {
        guard let first = parts.first else { return .reliableWrite([]) }
        var expected = Int(first.offset)
        for (i, p) in parts.enumerated() {
            guard p.handle == first.handle, Int(p.offset) == expected,
                  i == parts.count - 1 || p.value.count == mtu - 5 else { return .reliableWrite(parts) }
            expected += p.value.count
        }
        return .writeLongValue(first.handle, offset: first.offset, parts.flatMap(\.value))
    }
}
