import ATT
import BluetoothCore
import GATT

extension ServerTestCatalog {
    /// The descriptor reads and writes, run after the characteristic ones of their kind.
    static var descriptorReadTests: [ServerTestCase] { [readDescriptorInvalidHandle, readLongDescriptorNotPermitted,
                                                        readLongDescriptorInvalidOffset] }
    static var descriptorWriteTests: [ServerTestCase] { [writeDescriptorInvalidHandle, writeLongDescriptor,
                                                         writeLongDescriptorNotPermitted] }

    static var descriptors: (IUTProfile) -> [DiscoveredDescriptor] { { $0.characteristics.flatMap(\.descriptors) } }

    static let readDescriptorInvalidHandle = ServerTestCase(
        "GATT/SR/GAR/BI-24-C", "Read Characteristic Descriptors – Invalid Handle", precondition: "a handle no attribute has",
        spec: "Vol 3 Part G §4.12.1; Part F §3.4.4.3, §3.4.1.1") { p, t in
        guard let h = p.invalidHandle else { return .finish(.notApplicable("every handle is an attribute")) }
        guard let answer = t.lastReceived else { return .request(PDUCoding.bytes(.readRequest(ReadRequest(handle: h)))) }
        return .finish(Judge.error(answer, request: .readRequest, handle: h, code: .invalidHandle, spec: "Vol 3 Part F §3.4.4.3"))
    }

    static let readLongDescriptorNotPermitted = ServerTestCase(
        "GATT/SR/GAR/BI-28-C", "Read Long Characteristic Descriptors – Read Not Permitted",
        precondition: "a descriptor whose read discovery saw refused with Read Not Permitted",
        spec: "Vol 3 Part G §4.12.2; Part F §3.4.4.5, §3.4.1.1") { p, t in
        guard let d = descriptors(p).first(where: { p.values[$0.handle] == .refused(.readNotPermitted) }) else {
            return .finish(.notApplicable("no descriptor refused reading with Read Not Permitted"))
        }
        guard let answer = t.lastReceived else {
            return .request(PDUCoding.bytes(.readBlobRequest(ReadBlobRequest(handle: d.handle, offset: 0))))
        }
        return .finish(Judge.error(answer, request: .readBlobRequest, handle: d.handle, code: .readNotPermitted,
                                   spec: "Vol 3 Part F §3.4.4.5"))
    }

    static let readLongDescriptorInvalidOffset = ServerTestCase(
        "GATT/SR/GAR/BI-29-C", "Read Long Characteristic Descriptors – Invalid Offset",
        precondition: "a readable descriptor whose whole value was read", spec: "Vol 3 Part G §4.12.2; Part F §3.4.4.5, §3.4.1.1") { p, t in
        guard let d = descriptors(p).first(where: { !p.isLong($0.handle) && p.values[$0.handle]?.bytes != nil }),
              let value = p.values[d.handle]?.bytes else {
            return .finish(.notApplicable("no readable descriptor short enough to know its length"))
        }
        let offset = UInt16(value.count + 1)
        guard let answer = t.lastReceived else {
            return .request(PDUCoding.bytes(.readBlobRequest(ReadBlobRequest(handle: d.handle, offset: offset))))
        }
        if case .errorResponse(let e)? = PDUCoding.decoded(answer), e.errorCode == .attributeNotLong {
            let v = Judge.error(answer, request: .readBlobRequest, handle: d.handle, code: .attributeNotLong,
                                spec: "Vol 3 Part F §3.4.4.5")
            if case .pass = v { return .finish(.pass(note: "Attribute Not Long for a short value, which §3.4.4.5 allows")) }
            return .finish(v)
        }
        return .finish(Judge.error(answer, request: .readBlobRequest, handle: d.handle, code: .invalidOffset,
                                   spec: "Vol 3 Part F §3.4.4.5: offset \(offset) past a value of \(value.count) octets"))
    }

    static let writeDescriptorInvalidHandle = ServerTestCase(
        "GATT/SR/GAW/BI-20-C", "Write Characteristic Descriptors – Invalid Handle", precondition: "a handle no attribute has",
        spec: "Vol 3 Part G §4.12.3; Part F §3.4.5.1, §3.4.1.1") { p, t in
        guard let h = p.invalidHandle else { return .finish(.notApplicable("every handle is an attribute")) }
        guard let answer = t.lastReceived else { return .request(PDUCoding.bytes(.writeRequest(WriteRequest(handle: h, value: [0x00, 0x00])))) }
        return .finish(Judge.error(answer, request: .writeRequest, handle: h, code: .invalidHandle, spec: "Vol 3 Part F §3.4.5.1"))
    }

    static let writeLongDescriptor = ServerTestCase(
        "GATT/SR/GAW/BV-09-C", "Write Long Characteristic Descriptors",
        precondition: "a Characteristic User Description of a characteristic with the Writable Auxiliaries extended property",
        spec: "Vol 3 Part G §4.12.4, §3.3.3.1–§3.3.3.2; Part F §3.4.6") { p, t in
        // The User Description is writable exactly when Writable Auxiliaries is set (§3.3.3.2).
        let target = p.characteristics.lazy.compactMap { c -> (AttributeHandle, [UInt8])? in
            guard let cep = c.descriptors.first(where: { $0.uuid == GATTAttributeType.characteristicExtendedProperties }),
                  (p.values[cep.handle]?.bytes?.first ?? 0) & 0x02 != 0,
                  let d = c.descriptors.first(where: { $0.uuid == GATTAttributeType.characteristicUserDescription }),
                  let value = p.values[d.handle]?.bytes else { return nil }
            return (d.handle, value)
        }.first
        guard let (handle, value) = target else {
            return .finish(.notApplicable("no readable User Description under the Writable Auxiliaries extended property"))
        }
        return preparedWrite(handle, value, flags: .write, p, t)
    }

    static let writeLongDescriptorNotPermitted = ServerTestCase(
        "GATT/SR/GAW/BI-26-C", "Write Long Characteristic Descriptors – Write Not Permitted",
        precondition: "a Characteristic Extended Properties or Presentation Format descriptor (never writable)",
        spec: "Vol 3 Part G §3.3.3.1, §3.3.3.5; Part F §3.4.6.1, §3.4.1.1") { p, t in
        let readOnly: Set<BluetoothUUID> = [GATTAttributeType.characteristicExtendedProperties,
                                            GATTAttributeType.characteristicPresentationFormat]
        guard let d = descriptors(p).first(where: { readOnly.contains($0.uuid) && p.values[$0.handle]?.bytes != nil }),
              let value = p.values[d.handle]?.bytes else {
            return .finish(.notApplicable("no Extended Properties or Presentation Format descriptor"))
        }
        return preparedRefusal(d.handle, value, code: .writeNotPermitted, mayQueue: false, p, t)
    }
}
