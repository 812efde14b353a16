import ATT
import BluetoothCore

extension ServerTestCatalog {
    static let blobAcrossLongValue = ServerTestCase(
        "ATTUNE/SR/ROB/BLOB-01", "Read Blob at offset 0, the middle, the length and the length + 1 of a long value",
        precondition: "a readable value longer than ATT_MTU − 1 whose whole value discovery read",
        spec: "Vol 3 Part F §3.4.4.5–§3.4.4.6") { p, t in
        guard let c = p.readable.first(where: { p.isLong($0.valueHandle) && p.values[$0.valueHandle]?.bytes != nil }),
              let value = p.values[c.valueHandle]?.bytes else {
            return .finish(.notApplicable("no readable value longer than ATT_MTU − 1 = \(p.mtu - 1) read whole"))
        }
        return blobProbe(c.valueHandle, value: value, offsets: [0, value.count / 2, value.count, value.count + 1], p, t)
    }

    static let blobOnEmptyValue = ServerTestCase(
        "ATTUNE/SR/ROB/BLOB-02", "Read Blob at offset 0 and 1 of an empty value",
        precondition: "a readable characteristic value or descriptor of zero octets",
        spec: "Vol 3 Part F §3.4.4.5–§3.4.4.6") { p, t in
        let handles = p.readable.map(\.valueHandle) + p.characteristics.flatMap(\.descriptors).map(\.handle)
        guard let h = handles.first(where: { p.values[$0]?.bytes?.isEmpty == true }) else {
            return .finish(.notApplicable("no readable value of zero octets"))
        }
        return blobProbe(h, value: [], offsets: [0, 1], p, t)
    }

    /// Read Blob at each offset in turn; each answer judged against the value discovery read.
    static func blobProbe(_ handle: AttributeHandle, value: [UInt8], offsets: [Int], _ p: IUTProfile,
                          _ t: Transcript) -> ProcedureStep {
        var notes: [String] = []
        for (answer, offset) in zip(t.received, offsets) {
            switch blobAnswer(answer, handle: handle, value: value, offset: offset, mtu: p.mtu) {
            case .verdict(let v): return .finish(v)
            case .ok(let note): if let note { notes.append(note) }
            }
        }
        if t.received.count < offsets.count { return .request(ProbePDUs.readBlob(handle, offset: offsets[t.received.count])) }
        let said = notes.isEmpty ? "" : "; " + notes.joined(separator: "; ")
        return .finish(.pass(note: "\(value.count) octets at \(handle), offsets \(offsets.map(String.init).joined(separator: ", "))\(said)"))
    }

    /// One Read Blob answer at `offset`: the value's octets from there (at most
    /// ATT_MTU − 1), an empty part at the exact length, Invalid Offset past it. Attribute
    /// Not Long is allowed for a value that fits one response, and at the exact end.
    static func blobAnswer(_ answer: [UInt8], handle: AttributeHandle, value: [UInt8], offset: Int,
                           mtu: Int) -> Judged<String?> {
        switch PDUCoding.decode(answer) {
        case .failure(let e):
            return .verdict(.fail("malformed answer to Read Blob at offset \(offset) \(hexString(answer)): \(e)"))
        case .success(.readBlobResponse(let r)):
            guard offset <= value.count else {
                return .verdict(.fail("Read Blob at offset \(offset), past a value of \(value.count) octets, got a Read Blob "
                                      + "Response; it must be refused with Invalid Offset (Vol 3 Part F §3.4.4.5)"))
            }
            let expected = Array(value[offset..<min(value.count, offset + mtu - 1)])
            guard Array(r.value) == expected else {
                return .verdict(.fail("Read Blob at offset \(offset) returned \(r.value.count) octets "
                                      + "\(hexString(Array(r.value))); the value from that offset is \(expected.count) octets "
                                      + "\(hexString(expected)) (Vol 3 Part F §3.4.4.5–§3.4.4.6)"))
            }
            return .ok(nil)
        case .success(.errorResponse(let e)):
            if let declined = Judge.declined(e) { return .verdict(declined) }
            let short = value.count <= mtu - 1
            var allowed: [ATTErrorCode] = offset > value.count ? [.invalidOffset] : []
            if offset == value.count, !value.isEmpty { allowed += [.invalidOffset] }
            if short || offset >= value.count { allowed += [.attributeNotLong] }
            guard allowed.contains(e.errorCode) else {
                let want = offset > value.count ? "Invalid Offset" : "the value's octets from there"
                return .verdict(.fail("Read Blob at offset \(offset) of a \(value.count)-octet value refused with "
                                      + "\(e.errorCode); expected \(want) (Vol 3 Part F §3.4.4.5)"))
            }
            let v = Judge.error(answer, request: .readBlobRequest, handle: handle, code: e.errorCode, spec: "Vol 3 Part F §3.4.4.5")
            guard case .pass = v else { return .verdict(v) }
            return .ok(offset > value.count && e.errorCode == .invalidOffset ? nil
                       : "at offset \(offset) the IUT answered \(e.errorCode), which Vol 3 Part F §3.4.4.5 allows")
        case .success(let other):
            return .verdict(.fail("expected Read Blob Response, got \(other.opcode.name) (Vol 3 Part F §3.4.4.6)"))
        }
    }

    static let readHandleZero = ServerTestCase(
        "ATTUNE/SR/ROB/HDL-01", "Read Request on handle 0x0000", precondition: "none",
        spec: "Vol 3 Part F §3.2.2, §3.4.4.3") { _, t in
        guard let answer = t.lastReceived else { return .request(ProbePDUs.read(0)) }
        return .finish(Judge.error(answer, request: .readRequest, handle: .reserved, code: .invalidHandle,
                                   spec: "Vol 3 Part F §3.2.2: 0x0000 is reserved, so no attribute has it"))
    }

    static let rangeStartAfterEnd = ServerTestCase(
        "ATTUNE/SR/ROB/HDL-02", "Find Information with the starting handle after the ending handle", precondition: "none",
        spec: "Vol 3 Part F §3.4.3.1") { _, t in
        guard let answer = t.lastReceived else {
            return .request([ATTOpcode.findInformationRequest.rawValue] + ProbePDUs.le(0x0002) + ProbePDUs.le(0x0001))
        }
        return .finish(Judge.error(answer, request: .findInformationRequest, handle: AttributeHandle(0x0002), code: .invalidHandle,
                                   spec: "Vol 3 Part F §3.4.3.1: a starting handle greater than the ending handle"))
    }

    static let rangeStartAtZero = ServerTestCase(
        "ATTUNE/SR/ROB/HDL-03", "Read By Group Type with starting handle 0x0000", precondition: "none",
        spec: "Vol 3 Part F §3.4.4.9") { _, t in
        guard let answer = t.lastReceived else {
            return .request([ATTOpcode.readByGroupTypeRequest.rawValue] + ProbePDUs.le(0x0000) + ProbePDUs.le(0xFFFF)
                            + ProbePDUs.le(0x2800))
        }
        return .finish(Judge.error(answer, request: .readByGroupTypeRequest, handle: .reserved, code: .invalidHandle,
                                   spec: "Vol 3 Part F §3.4.4.9: a starting handle of 0x0000"))
    }

    static let truncatedPDU = ServerTestCase(
        "ATTUNE/SR/ROB/PDU-01", "A Read Request one octet short", precondition: "none",
        spec: "Vol 3 Part F §3.4.1.1, §3.4.4.3") { _, t in
        // A Read Request is the opcode and a 2-octet handle; this one carries one octet.
        guard let answer = t.lastReceived else { return .request([ATTOpcode.readRequest.rawValue, 0x01]) }
        switch PDUCoding.decode(answer) {
        case .failure(let e):
            return .finish(.fail("malformed answer to a truncated Read Request \(hexString(answer)): \(e)"))
        case .success(.errorResponse(let e)):
            guard e.requestOpcode == .readRequest else {
                return .finish(.fail("Error Response names request opcode \(e.requestOpcode.name), not Read Request (Vol 3 Part F §3.4.1.1)"))
            }
            guard e.errorCode == .invalidPDU else {
                return .finish(.fail("a 2-octet Read Request was refused with \(e.errorCode); a PDU whose length its "
                                     + "opcode does not allow is Invalid PDU (Vol 3 Part F §3.4.1.1)"))
            }
            return .finish(.pass(note: e.handle == .reserved ? nil : "the Error Response names handle \(e.handle)"))
        case .success(let other):
            return .finish(.fail("a 2-octet Read Request was answered with \(other.opcode.name); a PDU whose length its "
                                 + "opcode does not allow is refused with Invalid PDU (Vol 3 Part F §3.4.1.1)"))
        }
    }
}
