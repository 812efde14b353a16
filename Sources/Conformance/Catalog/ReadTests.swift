import ATT
import BluetoothCore
import GATT

extension ServerTestCatalog {
    static var readTests: [ServerTestCase] {
        [readValue, readInvalidHandle, readNotPermitted, readByUUID, readByUUIDNotPermitted, readByUUIDNotFound,
         readLong, readLongNotPermitted, readLongInvalidOffset, readLongInvalidHandle, readMultiple,
         readMultipleNotPermitted, readMultipleInvalidHandle, readDescriptor, readLongDescriptor] + descriptorReadTests
    }

    static let readValue = ServerTestCase(
        "GATT/SR/GAR/BV-01-C", "Read Characteristic Value", precondition: "a characteristic with the Read property",
        spec: "Vol 3 Part G §4.8.1; Part F §3.4.4.3–§3.4.4.4") { p, t in
        guard let c = p.readable.first else { return .finish(.notApplicable("no readable characteristic")) }
        guard let answer = t.lastReceived else { return .request(PDUCoding.bytes(.readRequest(ReadRequest(handle: c.valueHandle)))) }
        switch Judge.readValue(answer, mtu: p.mtu) {
        case .verdict(let v): return .finish(v)
        case .ok(let v): return .finish(.pass(note: "\(v.count) octets from \(c.uuid) at \(c.valueHandle)"))
        }
    }

    static let readInvalidHandle = ServerTestCase(
        "GATT/SR/GAR/BI-01-C", "Read Characteristic Value – Invalid Handle", precondition: "a handle no attribute has",
        spec: "Vol 3 Part F §3.4.4.3, §3.4.1.1") { p, t in
        guard let h = p.invalidHandle else { return .finish(.notApplicable("every handle is an attribute")) }
        guard let answer = t.lastReceived else { return .request(PDUCoding.bytes(.readRequest(ReadRequest(handle: h)))) }
        return .finish(Judge.error(answer, request: .readRequest, handle: h, code: .invalidHandle, spec: "Vol 3 Part F §3.4.4.3"))
    }

    static let readNotPermitted = ServerTestCase(
        "GATT/SR/GAR/BI-02-C", "Read Characteristic Value – Read Not Permitted",
        precondition: "a characteristic without the Read property", spec: "Vol 3 Part F §3.4.4.3, §3.4.1.1") { p, t in
        guard let c = p.unreadable.first else { return .finish(.notApplicable("every characteristic has the Read property")) }
        guard let answer = t.lastReceived else { return .request(PDUCoding.bytes(.readRequest(ReadRequest(handle: c.valueHandle)))) }
        return .finish(refusal(answer, request: .readRequest, handle: c.valueHandle, code: .readNotPermitted,
                               spec: "Vol 3 Part F §3.4.4.3"))
    }

    static let readByUUID = ServerTestCase(
        "GATT/SR/GAR/BV-03-C", "Read Using Characteristic UUID",
        precondition: "a readable characteristic whose UUID no other characteristic has",
        spec: "Vol 3 Part G §4.8.2; Part F §3.4.4.1–§3.4.4.2") { p, t in
        guard let c = uniquelyTyped(p.readable, in: p) else {
            return .finish(.notApplicable("no readable characteristic with a UUID of its own"))
        }
        guard let answer = t.lastReceived else {
            return .request(PDUCoding.bytes(.readByTypeRequest(ReadByTypeRequest(range: .all, attributeType: c.uuid))))
        }
        switch PDUCoding.decode(answer) {
        case .failure(let e): return .finish(.fail("malformed answer \(hexString(answer)): \(e)"))
        case .success(.readByTypeResponse(let r)):
            let bound = min(p.mtu - 4, 253)
            guard Int(r.length) - 2 <= bound else {
                return .finish(.fail("values of \(Int(r.length) - 2) octets; at most min(ATT_MTU − 4, 253) = \(bound) (Vol 3 Part F §3.4.4.2)"))
            }
            if case .failure(let v) = RangeProcedure.ordered(r.entries.map(\.handle), inside: .all, what: "Read By Type Response") {
                return .finish(.fail(v.reason))
            }
            guard r.entries.contains(where: { $0.handle == c.valueHandle }) else {
                return .finish(.fail("no value of \(c.uuid) at \(c.valueHandle) in the answer"))
            }
            return .finish(.pass(note: "\(c.uuid) at \(c.valueHandle)"))
        case .success(.errorResponse(let e)):
            return .finish(Judge.declined(e) ?? .fail("Read By Type refused with \(e.errorCode) on \(e.handle)"))
        case .success(let other):
            return .finish(.fail("expected Read By Type Response, got \(other.opcode.name) (Vol 3 Part F §3.4.4.2)"))
        }
    }

    static let readByUUIDNotPermitted = ServerTestCase(
        "GATT/SR/GAR/BI-06-C", "Read Using Characteristic UUID – Read Not Permitted",
        precondition: "a characteristic without the Read property whose UUID no other characteristic has",
        spec: "Vol 3 Part F §3.4.4.1, §3.4.1.1") { p, t in
        guard let c = uniquelyTyped(p.unreadable, in: p) else {
            return .finish(.notApplicable("no unreadable characteristic with a UUID of its own"))
        }
        guard let answer = t.lastReceived else {
            return .request(PDUCoding.bytes(.readByTypeRequest(ReadByTypeRequest(range: .all, attributeType: c.uuid))))
        }
        return .finish(refusal(answer, request: .readByTypeRequest, handle: c.valueHandle, code: .readNotPermitted,
                               spec: "Vol 3 Part F §3.4.4.1"))
    }

    static let readByUUIDNotFound = ServerTestCase(
        "GATT/SR/GAR/BI-07-C", "Read Using Characteristic UUID – Attribute Not Found",
        precondition: "a 16-bit UUID no attribute has", spec: "Vol 3 Part F §3.4.4.1, §3.4.1.1") { p, t in
        let used = Set(p.attributes.map(\.type) + p.characteristics.map(\.uuid))
        guard let absent = (0xFF00...0xFFFE).reversed().map({ BluetoothUUID(UInt16($0)) }).first(where: { !used.contains($0) }) else {
            return .finish(.notApplicable("no unused UUID found"))
        }
        guard let answer = t.lastReceived else {
            return .request(PDUCoding.bytes(.readByTypeRequest(ReadByTypeRequest(range: .all, attributeType: absent))))
        }
        return .finish(Judge.error(answer, request: .readByTypeRequest, handle: .min, code: .attributeNotFound,
                                   spec: "Vol 3 Part F §3.4.4.1"))
    }

    static let readLong = ServerTestCase(
        "GATT/SR/GAR/BV-04-C", "Read Long Characteristic Values",
        precondition: "a readable characteristic value longer than ATT_MTU − 1",
        spec: "Vol 3 Part G §4.8.3; Part F §3.4.4.5–§3.4.4.6") { p, t in
        guard let c = p.readable.first(where: { p.isLong($0.valueHandle) }) else {
            return .finish(.notApplicable("no readable value longer than ATT_MTU − 1 = \(p.mtu - 1)"))
        }
        return longRead(c.valueHandle, p, t)
    }

    static let readLongNotPermitted = ServerTestCase(
        "GATT/SR/GAR/BI-12-C", "Read Long Characteristic Values – Read Not Permitted",
        precondition: "a characteristic without the Read property", spec: "Vol 3 Part F §3.4.4.5, §3.4.1.1") { p, t in
        guard let c = p.unreadable.first else { return .finish(.notApplicable("every characteristic has the Read property")) }
        guard let answer = t.lastReceived else {
            return .request(PDUCoding.bytes(.readBlobRequest(ReadBlobRequest(handle: c.valueHandle, offset: 0))))
        }
        return .finish(refusal(answer, request: .readBlobRequest, handle: c.valueHandle, code: .readNotPermitted,
                               spec: "Vol 3 Part F §3.4.4.5"))
    }

    static let readLongInvalidOffset = ServerTestCase(
        "GATT/SR/GAR/BI-13-C", "Read Long Characteristic Values – Invalid Offset",
        precondition: "a readable characteristic whose whole value was read", spec: "Vol 3 Part F §3.4.4.5, §3.4.1.1") { p, t in
        guard let c = p.readable.first(where: { !p.isLong($0.valueHandle) && p.values[$0.valueHandle]?.bytes != nil }),
              let value = p.values[c.valueHandle]?.bytes else {
            return .finish(.notApplicable("no readable value short enough to know its length"))
        }
        let offset = UInt16(value.count + 1)
        guard let answer = t.lastReceived else {
            return .request(PDUCoding.bytes(.readBlobRequest(ReadBlobRequest(handle: c.valueHandle, offset: offset))))
        }
        // A value no longer than ATT_MTU − 1 may answer Attribute Not Long instead (§3.4.4.5).
        if case .errorResponse(let e)? = PDUCoding.decoded(answer), e.errorCode == .attributeNotLong {
            let v = Judge.error(answer, request: .readBlobRequest, handle: c.valueHandle, code: .attributeNotLong,
                                spec: "Vol 3 Part F §3.4.4.5")
            if case .pass = v { return .finish(.pass(note: "Attribute Not Long for a short value, which §3.4.4.5 allows")) }
            return .finish(v)
        }
        return .finish(Judge.error(answer, request: .readBlobRequest, handle: c.valueHandle, code: .invalidOffset,
                                   spec: "Vol 3 Part F §3.4.4.5: offset \(offset) past a value of \(value.count) octets"))
    }

    static let readLongInvalidHandle = ServerTestCase(
        "GATT/SR/GAR/BI-14-C", "Read Long Characteristic Values – Invalid Handle", precondition: "a handle no attribute has",
        spec: "Vol 3 Part F §3.4.4.5, §3.4.1.1") { p, t in
        guard let h = p.invalidHandle else { return .finish(.notApplicable("every handle is an attribute")) }
        guard let answer = t.lastReceived else { return .request(PDUCoding.bytes(.readBlobRequest(ReadBlobRequest(handle: h, offset: 0)))) }
        return .finish(Judge.error(answer, request: .readBlobRequest, handle: h, code: .invalidHandle, spec: "Vol 3 Part F §3.4.4.5"))
    }

    static let readMultiple = ServerTestCase(
        "GATT/SR/GAR/BV-05-C", "Read Multiple Characteristic Values", precondition: "two readable characteristics",
        spec: "Vol 3 Part G §4.8.4; Part F §3.4.4.7–§3.4.4.8") { p, t in
        let known = p.readable.filter { !p.isLong($0.valueHandle) && p.values[$0.valueHandle]?.bytes != nil }
        guard known.count >= 2 else { return .finish(.notApplicable("fewer than two readable characteristics")) }
        let a = known[0], b = known[1]
        guard let answer = t.lastReceived else {
            return .request(PDUCoding.bytes(.readMultipleRequest(ReadMultipleRequest(handles: [a.valueHandle, b.valueHandle]))))
        }
        switch PDUCoding.decode(answer) {
        case .failure(let e): return .finish(.fail("malformed answer \(hexString(answer)): \(e)"))
        case .success(.readMultipleResponse(let r)):
            let total = (p.values[a.valueHandle]?.bytes?.count ?? 0) + (p.values[b.valueHandle]?.bytes?.count ?? 0)
            let expected = min(total, p.mtu - 1)
            guard r.value.count == expected else {
                return .finish(.fail("Read Multiple Response of \(r.value.count) octets; the two values make \(total), "
                                     + "so it carries \(expected) (Vol 3 Part F §3.4.4.8)"))
            }
            return .finish(.pass(note: "\(r.value.count) octets for \(a.valueHandle) and \(b.valueHandle)"))
        case .success(.errorResponse(let e)):
            return .finish(Judge.declined(e) ?? .fail("Read Multiple refused with \(e.errorCode) on \(e.handle)"))
        case .success(let other):
            return .finish(.fail("expected Read Multiple Response, got \(other.opcode.name) (Vol 3 Part F §3.4.4.8)"))
        }
    }

    static let readMultipleNotPermitted = ServerTestCase(
        "GATT/SR/GAR/BI-18-C", "Read Multiple Characteristic Values – Read Not Permitted",
        precondition: "a readable characteristic and one without the Read property", spec: "Vol 3 Part F §3.4.4.7, §3.4.1.1") { p, t in
        guard let a = p.readable.first, let b = p.unreadable.first else {
            return .finish(.notApplicable("needs a readable characteristic and one without the Read property"))
        }
        guard let answer = t.lastReceived else {
            return .request(PDUCoding.bytes(.readMultipleRequest(ReadMultipleRequest(handles: [a.valueHandle, b.valueHandle]))))
        }
        return .finish(refusal(answer, request: .readMultipleRequest, handle: b.valueHandle, code: .readNotPermitted,
                               spec: "Vol 3 Part F §3.4.4.7"))
    }

    static let readMultipleInvalidHandle = ServerTestCase(
        "GATT/SR/GAR/BI-19-C", "Read Multiple Characteristic Values – Invalid Handle",
        precondition: "a readable characteristic and a handle no attribute has", spec: "Vol 3 Part F §3.4.4.7, §3.4.1.1") { p, t in
        guard let a = p.readable.first, let h = p.invalidHandle else {
            return .finish(.notApplicable("needs a readable characteristic and an unused handle"))
        }
        guard let answer = t.lastReceived else {
            return .request(PDUCoding.bytes(.readMultipleRequest(ReadMultipleRequest(handles: [a.valueHandle, h]))))
        }
        if case .errorResponse(let e)? = PDUCoding.decoded(answer), e.errorCode == .requestNotSupported {
            return .finish(.notApplicable("the IUT declines Read Multiple with Request Not Supported"))
        }
        return .finish(Judge.error(answer, request: .readMultipleRequest, handle: h, code: .invalidHandle,
                                   spec: "Vol 3 Part F §3.4.4.7"))
    }

    static let readDescriptor = ServerTestCase(
        "GATT/SR/GAR/BV-06-C", "Read Characteristic Descriptors", precondition: "a readable descriptor",
        spec: "Vol 3 Part G §4.12.1; Part F §3.4.4.3–§3.4.4.4") { p, t in
        let descriptors = p.characteristics.flatMap(\.descriptors).filter { p.values[$0.handle]?.knownPrefix != nil }
        guard let d = descriptors.first(where: { $0.uuid == GATTAttributeType.clientCharacteristicConfiguration }) ?? descriptors.first else {
            return .finish(.notApplicable("no readable descriptor"))
        }
        guard let answer = t.lastReceived else { return .request(PDUCoding.bytes(.readRequest(ReadRequest(handle: d.handle)))) }
        switch Judge.readValue(answer, mtu: p.mtu) {
        case .verdict(let v): return .finish(v)
        case .ok(let v):
            if d.uuid == GATTAttributeType.clientCharacteristicConfiguration, v.count != 2 {
                return .finish(.fail("a Client Characteristic Configuration value is 2 octets, read \(v.count) (Vol 3 Part G §3.3.3.3)"))
            }
            return .finish(.pass(note: "\(v.count) octets from \(d.uuid) at \(d.handle)"))
        }
    }

    static let readLongDescriptor = ServerTestCase(
        "GATT/SR/GAR/BV-07-C", "Read Long Characteristic Descriptors",
        precondition: "a readable descriptor longer than ATT_MTU − 1", spec: "Vol 3 Part G §4.12.2; Part F §3.4.4.5–§3.4.4.6") { p, t in
        guard let d = p.characteristics.flatMap(\.descriptors).first(where: { p.isLong($0.handle) }) else {
            return .finish(.notApplicable("no readable descriptor longer than ATT_MTU − 1 = \(p.mtu - 1)"))
        }
        return longRead(d.handle, p, t)
    }

    /// Read, then Read Blob at each next offset while parts come full (Vol 3 Part G §4.8.3).
    static func longRead(_ handle: AttributeHandle, _ p: IUTProfile, _ t: Transcript) -> ProcedureStep {
        guard let first = t.received.first else { return .request(PDUCoding.bytes(.readRequest(ReadRequest(handle: handle)))) }
        var value: [UInt8]
        switch Judge.readValue(first, mtu: p.mtu) {
        case .verdict(let v): return .finish(v)
        case .ok(let v): value = v
        }
        for (n, answer) in t.received.dropFirst().enumerated() {
            let isLast = n == t.received.count - 2
            if isLast, value.count % (p.mtu - 1) == 0, case .errorResponse(let e)? = PDUCoding.decoded(answer),
               e.errorCode == .attributeNotLong || e.errorCode == .invalidOffset {
                return .finish(.pass(note: "\(value.count) octets; at the end offset the IUT answered \(e.errorCode), "
                                     + "which Vol 3 Part F §3.4.4.5 allows"))
            }
            switch Judge.blobPart(answer, mtu: p.mtu) {
            case .verdict(let v): return .finish(v)
            case .ok(let part):
                if !isLast && part.count < p.mtu - 1 { return .finish(.fail("a short part before the end")) }
                value += part
            }
        }
        guard value.count <= DiscoveryWalk.maximumValueLength else {
            return .finish(.fail("the parts add up to \(value.count) octets, past the 512-octet attribute maximum "
                                 + "(Vol 3 Part F §3.2.9): the IUT does not honour the Value Offset of Read Blob (§3.4.4.5)"))
        }
        let lastPart = t.received.count == 1 ? value.count : (DiscoveryWalk.part(t.received.last ?? []) ?? []).count
        if lastPart == p.mtu - 1 {
            return .request(PDUCoding.bytes(.readBlobRequest(ReadBlobRequest(handle: handle, offset: UInt16(value.count)))))
        }
        if let known = p.values[handle]?.bytes, known.count == value.count, known.prefix(p.mtu - 1) == value.prefix(p.mtu - 1),
           known != value {
            return .finish(.fail("the value read in parts differs from the value discovery read in parts at the same "
                                 + "length: Read Blob answers do not follow the Value Offset (Vol 3 Part F §3.4.4.6)"))
        }
        return .finish(.pass(note: "\(value.count) octets in \(t.received.count) parts"))
    }

    /// An Error Response with `code` naming `handle`, where a successful answer means the
    /// precondition guessed from the properties does not hold rather than a broken rule.
    static func refusal(_ answer: [UInt8], request: ATTOpcode, handle: AttributeHandle, code: ATTErrorCode,
                        spec: String) -> ConformanceTestVerdict {
        guard case .errorResponse? = PDUCoding.decoded(answer) else {
            if PDUCoding.decoded(answer) != nil {
                return .inconclusive("the IUT serves \(handle) although its properties say otherwise; the precondition "
                                     + "is taken from the characteristic properties (an IXIT file is not supported yet)")
            }
            return Judge.error(answer, request: request, handle: handle, code: code, spec: spec)
        }
        return Judge.error(answer, request: request, handle: handle, code: code, spec: spec)
    }

    /// A characteristic among `candidates` whose UUID no other attribute has.
    static func uniquelyTyped(_ candidates: [DiscoveredCharacteristic], in p: IUTProfile) -> DiscoveredCharacteristic? {
        candidates.first { c in p.attributes.filter { $0.type == c.uuid }.count <= 1
            && p.characteristics.filter { $0.uuid == c.uuid }.count == 1 }
    }
}
