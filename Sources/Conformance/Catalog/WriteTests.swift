import ATT
import BluetoothCore
import GATT

extension ServerTestCatalog {
    static var writeTests: [ServerTestCase] {
        [writeWithoutResponse, writeValue, writeInvalidHandle, writeNotPermitted, writeLong, writeLongInvalidHandle,
         writeLongNotPermitted, reliableWrite, queuedWritesToTwo, reliableWriteInvalidHandle, reliableWriteNotPermitted, preparedWriteCancelled,
         writeDescriptor] + descriptorWriteTests
    }

    /// Characteristics with `property` whose whole value discovery read, so a test can
    /// write the same value back and leave the IUT as it found it.
    static func writeBack(_ p: IUTProfile, _ property: CharacteristicProperties, fitting limit: Int? = nil)
        -> [(DiscoveredCharacteristic, [UInt8])] {
        p.characteristics.compactMap { c in
            guard c.properties.contains(property), let v = p.values[c.valueHandle]?.bytes, v.count <= (limit ?? v.count) else { return nil }
            return (c, v)
        }
    }

    static let writeWithoutResponse = ServerTestCase(
        "GATT/SR/GAW/BV-01-C", "Write Without Response",
        precondition: "a readable characteristic with Write Without Response", spec: "Vol 3 Part G §4.9.1; Part F §3.4.5.3") { p, t in
        guard let (c, value) = writeBack(p, .writeWithoutResponse, fitting: p.mtu - 3).first else {
            return .finish(.notApplicable("no readable characteristic with Write Without Response to write its value back to"))
        }
        guard t.sentCount > 0 else { return .command(PDUCoding.bytes(.writeCommand(WriteCommand(handle: c.valueHandle, value: value)))) }
        // A Read after the command: its answer must be the next PDU, as a command has none.
        guard let answer = t.lastReceived else { return .request(PDUCoding.bytes(.readRequest(ReadRequest(handle: c.valueHandle)))) }
        if answer.first == ATTOpcode.writeResponse.rawValue || answer.first == ATTOpcode.errorResponse.rawValue
            && answer.count > 1 && answer[1] == ATTOpcode.writeCommand.rawValue {
            return .finish(.fail("the IUT answered the Write Command; commands get no response (Vol 3 Part F §3.3, §3.4.5.3)"))
        }
        switch Judge.readValue(answer, mtu: p.mtu) {
        case .verdict(let v): return .finish(v)
        case .ok(let read):
            return .finish(.pass(note: read == value ? nil : "the value read back differs from the value written"))
        }
    }

    static let writeValue = ServerTestCase(
        "GATT/SR/GAW/BV-03-C", "Write Characteristic Value", precondition: "a readable characteristic with the Write property",
        spec: "Vol 3 Part G §4.9.3; Part F §3.4.5.1–§3.4.5.2") { p, t in
        guard let (c, value) = writeBack(p, .write, fitting: p.mtu - 3).first else {
            return .finish(.notApplicable("no readable characteristic with the Write property to write its value back to"))
        }
        guard let answer = t.lastReceived else { return .request(PDUCoding.bytes(.writeRequest(WriteRequest(handle: c.valueHandle, value: value)))) }
        return .finish(Judge.response(answer, is: .writeResponse, spec: "Vol 3 Part F §3.4.5.2"))
    }

    static let writeInvalidHandle = ServerTestCase(
        "GATT/SR/GAW/BI-02-C", "Write Characteristic Value – Invalid Handle", precondition: "a handle no attribute has",
        spec: "Vol 3 Part F §3.4.5.1, §3.4.1.1") { p, t in
        guard let h = p.invalidHandle else { return .finish(.notApplicable("every handle is an attribute")) }
        guard let answer = t.lastReceived else { return .request(PDUCoding.bytes(.writeRequest(WriteRequest(handle: h, value: [0x00])))) }
        return .finish(Judge.error(answer, request: .writeRequest, handle: h, code: .invalidHandle, spec: "Vol 3 Part F §3.4.5.1"))
    }

    static let writeNotPermitted = ServerTestCase(
        "GATT/SR/GAW/BI-03-C", "Write Characteristic Value – Write Not Permitted",
        precondition: "a readable characteristic without any write property", spec: "Vol 3 Part F §3.4.5.1, §3.4.1.1") { p, t in
        guard let c = p.unwritable.first(where: { p.values[$0.valueHandle]?.bytes != nil }),
              let value = p.values[c.valueHandle]?.bytes, value.count <= p.mtu - 3 else {
            return .finish(.notApplicable("no readable characteristic without write properties"))
        }
        guard let answer = t.lastReceived else { return .request(PDUCoding.bytes(.writeRequest(WriteRequest(handle: c.valueHandle, value: value)))) }
        return .finish(refusal(answer, request: .writeRequest, handle: c.valueHandle, code: .writeNotPermitted,
                               spec: "Vol 3 Part F §3.4.5.1"))
    }

    static let writeLong = ServerTestCase(
        "GATT/SR/GAW/BV-05-C", "Write Long Characteristic Values",
        precondition: "a readable characteristic with the Write property", spec: "Vol 3 Part G §4.9.4; Part F §3.4.6.1–§3.4.6.4") { p, t in
        let candidates = writeBack(p, .write)
        guard let (c, value) = candidates.first(where: { $0.1.count > p.mtu - 5 }) ?? candidates.first else {
            return .finish(.notApplicable("no readable characteristic with the Write property to write its value back to"))
        }
        return preparedWrite(c.valueHandle, value, flags: .write, p, t)
    }

    static let writeLongInvalidHandle = ServerTestCase(
        "GATT/SR/GAW/BI-07-C", "Write Long Characteristic Values – Invalid Handle", precondition: "a handle no attribute has",
        spec: "Vol 3 Part F §3.4.6.1, §3.4.1.1") { p, t in
        guard let h = p.invalidHandle else { return .finish(.notApplicable("every handle is an attribute")) }
        return preparedRefusal(h, [0x00], code: .invalidHandle, p, t)
    }

    static let writeLongNotPermitted = ServerTestCase(
        "GATT/SR/GAW/BI-08-C", "Write Long Characteristic Values – Write Not Permitted",
        precondition: "a readable characteristic without any write property", spec: "Vol 3 Part F §3.4.6.1, §3.4.1.1") { p, t in
        guard let c = p.unwritable.first(where: { p.values[$0.valueHandle]?.bytes != nil }),
              let value = p.values[c.valueHandle]?.bytes else {
            return .finish(.notApplicable("no readable characteristic without write properties"))
        }
        return preparedRefusal(c.valueHandle, Array(value.prefix(p.mtu - 5)), code: .writeNotPermitted, p, t)
    }

    static let reliableWrite = ServerTestCase(
        "GATT/SR/GAW/BV-06-C", "Reliable Writes",
        precondition: "a readable, writable characteristic with the Reliable Write extended property",
        spec: "Vol 3 Part G §4.9.5, §3.3.3.1; Part F §3.4.6") { p, t in
        let reliable = reliablyWritable(p)
        guard let (c, value) = reliable.first else {
            return .finish(.notApplicable("no readable characteristic with the Reliable Write extended property"))
        }
        return preparedWrite(c.valueHandle, value, flags: .write, p, t)
    }

    static let queuedWritesToTwo = ServerTestCase(
        "GATT/SR/GAW/BV-10-C", "Reliable Writes to two characteristics",
        precondition: "two readable, writable characteristics with the Reliable Write extended property",
        spec: "Vol 3 Part G §4.9.5; Part F §3.4.6") { p, t in
        let reliable = reliablyWritable(p)
        guard reliable.count >= 2 else {
            return .finish(.notApplicable("fewer than two readable characteristics with the Reliable Write extended property"))
        }
        return preparedWrites(reliable.prefix(2).map { ($0.0.valueHandle, $0.1) }, flags: .write, p, t)
    }

    /// Characteristics with Write and the Reliable Write extended property, with the value
    /// discovery read.
    static func reliablyWritable(_ p: IUTProfile) -> [(DiscoveredCharacteristic, [UInt8])] {
        writeBack(p, .write).filter { c, _ in
            c.descriptors.contains { d in
                d.uuid == GATTAttributeType.characteristicExtendedProperties && (p.values[d.handle]?.bytes?.first ?? 0) & 0x01 != 0
            }
        }
    }

    static let reliableWriteInvalidHandle = ServerTestCase(
        "GATT/SR/GAW/BI-14-C", "Reliable Writes – Invalid Handle", precondition: "a handle no attribute has",
        spec: "Vol 3 Part G §4.9.5; Part F §3.4.6.1, §3.4.1.1") { p, t in
        guard let h = p.invalidHandle else { return .finish(.notApplicable("every handle is an attribute")) }
        return preparedRefusal(h, [0x00], code: .invalidHandle, p, t)
    }

    static let reliableWriteNotPermitted = ServerTestCase(
        "GATT/SR/GAW/BI-15-C", "Reliable Writes – Write Not Permitted",
        precondition: "a readable characteristic without any write property", spec: "Vol 3 Part G §4.9.5; Part F §3.4.6.1, §3.4.1.1") { p, t in
        guard let c = p.unwritable.last(where: { p.values[$0.valueHandle]?.bytes != nil }),
              let value = p.values[c.valueHandle]?.bytes else {
            return .finish(.notApplicable("no readable characteristic without write properties"))
        }
        return preparedRefusal(c.valueHandle, Array(value.prefix(p.mtu - 5)), code: .writeNotPermitted, p, t)
    }

    static let preparedWriteCancelled = ServerTestCase(
        "GATT/SR/GAW/BV-07-C", "Write Long Characteristic Values – Execute Write cancels",
        precondition: "a readable characteristic with the Write property", spec: "Vol 3 Part F §3.4.6.3") { p, t in
        guard let (c, value) = writeBack(p, .write, fitting: p.mtu - 5).first(where: { !$0.1.isEmpty }) else {
            return .finish(.notApplicable("no readable, non-empty characteristic with the Write property"))
        }
        // A different value, so a cancel that writes anyway shows in the read-back.
        let changed = [value[0] ^ 0xFF] + value.dropFirst()
        let received = t.received
        switch received.count {
        case 0:
            return .request(PDUCoding.bytes(.prepareWriteRequest(PrepareWriteRequest(handle: c.valueHandle, offset: 0, partValue: changed))))
        case 1:
            if let v = echoFailure(received[0], c.valueHandle, 0, changed) { return .finish(v) }
            return .request(PDUCoding.bytes(.executeWriteRequest(ExecuteWriteRequest(flags: .cancel))))
        case 2:
            let v = Judge.response(received[1], is: .executeWriteResponse, spec: "Vol 3 Part F §3.4.6.4")
            guard case .pass = v else { return .finish(v) }
            return .request(PDUCoding.bytes(.readRequest(ReadRequest(handle: c.valueHandle))))
        default:
            switch Judge.readValue(received[2], mtu: p.mtu) {
            case .verdict(let v): return .finish(v)
            case .ok(let read):
                guard read != changed else {
                    return .finish(.fail("after Execute Write with flags 0x00 the value is the one prepared: the queue "
                                         + "was written, not cancelled (Vol 3 Part F §3.4.6.3)"))
                }
                return .finish(.pass(note: nil))
            }
        }
    }

    static let writeDescriptor = ServerTestCase(
        "GATT/SR/GAW/BV-08-C", "Write Characteristic Descriptors",
        precondition: "a Client Characteristic Configuration descriptor", spec: "Vol 3 Part G §4.12.3, §3.3.3.3") { p, t in
        guard let cccd = p.characteristics.compactMap(\.clientConfigurationHandle).first else {
            return .finish(.notApplicable("no Client Characteristic Configuration descriptor"))
        }
        guard let answer = t.lastReceived else { return .request(PDUCoding.bytes(.writeRequest(WriteRequest(handle: cccd, value: [0x00, 0x00])))) }
        return .finish(Judge.response(answer, is: .writeResponse, spec: "Vol 3 Part F §3.4.5.2"))
    }

    /// Why a Prepare Write Response does not echo the request (Vol 3 Part F §3.4.6.2),
    /// or nil when it does.
    static func echoFailure(_ answer: [UInt8], _ handle: AttributeHandle, _ offset: UInt16, _ part: [UInt8]) -> ConformanceTestVerdict? {
        switch PDUCoding.decode(answer) {
        case .failure(let e): return .fail("malformed answer \(hexString(answer)): \(e)")
        case .success(.prepareWriteResponse(let r)):
            guard r.handle == handle, r.offset == offset, Array(r.partValue) == part else {
                return .fail("Prepare Write Response \(r.handle) offset \(r.offset) does not echo the request "
                             + "(\(handle) offset \(offset), \(part.count) octets) (Vol 3 Part F §3.4.6.2)")
            }
            return nil
        case .success(.errorResponse(let e)):
            return Judge.declined(e) ?? .fail("Prepare Write refused with \(e.errorCode) on \(e.handle)")
        case .success(let other):
            return .fail("expected Prepare Write Response, got \(other.opcode.name) (Vol 3 Part F §3.4.6.2)")
        }
    }

    /// Prepare Write parts of ATT_MTU − 5 octets, each echoed, then Execute Write. A bad
    /// echo is followed by an Execute Write that cancels, so the IUT's queue is left empty.
    static func preparedWrite(_ handle: AttributeHandle, _ value: [UInt8], flags: ExecuteWriteRequest.Flags,
                              _ p: IUTProfile, _ t: Transcript) -> ProcedureStep {
        preparedWrites([(handle, value)], flags: flags, p, t)
    }

    /// Prepared writes to several attributes, their parts interleaved (first parts of
    /// each, then second parts...), then one Execute Write for the whole queue.
    static func preparedWrites(_ writes: [(AttributeHandle, [UInt8])], flags: ExecuteWriteRequest.Flags,
                               _ p: IUTProfile, _ t: Transcript) -> ProcedureStep {
        let size = p.mtu - 5
        let perWrite = writes.map { handle, value in
            stride(from: 0, to: max(value.count, 1), by: size).map {
                (handle: handle, offset: $0, part: Array(value[min($0, value.count)..<min($0 + size, value.count)]))
            }
        }
        let rounds = perWrite.map(\.count).max() ?? 0
        let parts = (0..<rounds).flatMap { r in perWrite.compactMap { r < $0.count ? $0[r] : nil } }
        let received = t.received
        for (i, answer) in received.enumerated() where i < parts.count {
            guard let failure = echoFailure(answer, parts[i].handle, UInt16(parts[i].offset), parts[i].part) else { continue }
            let refusedFirst = i == 0 && answer.first == ATTOpcode.errorResponse.rawValue
            if refusedFirst || received.count > i + 1 { return .finish(failure) }
            return .request(PDUCoding.bytes(.executeWriteRequest(ExecuteWriteRequest(flags: .cancel))))
        }
        if received.count < parts.count {
            let next = parts[received.count]
            return .request(PDUCoding.bytes(.prepareWriteRequest(PrepareWriteRequest(
                handle: next.handle, offset: UInt16(next.offset), partValue: next.part))))
        }
        guard let answer = t.lastReceived, received.count > parts.count else {
            return .request(PDUCoding.bytes(.executeWriteRequest(ExecuteWriteRequest(flags: flags))))
        }
        let v = Judge.response(answer, is: .executeWriteResponse, spec: "Vol 3 Part F §3.4.6.4")
        guard case .pass = v else { return .finish(v) }
        let octets = writes.map(\.1.count).reduce(0, +)
        return .finish(.pass(note: "\(octets) octets to \(writes.count) attribute(s) in \(parts.count) prepared parts"))
    }

    /// A Prepare Write the IUT must refuse with `code` naming `handle`; when it queues the
    /// part instead, an Execute Write cancels it before the verdict.
    ///
    /// `mayQueue` false: the spec itself makes the attribute unwritable, so a queued part
    /// fails the test instead of questioning a precondition read from the properties.
    static func preparedRefusal(_ handle: AttributeHandle, _ part: [UInt8], code: ATTErrorCode, mayQueue: Bool = true,
                                _ p: IUTProfile, _ t: Transcript) -> ProcedureStep {
        let received = t.received
        guard let first = received.first else {
            return .request(PDUCoding.bytes(.prepareWriteRequest(PrepareWriteRequest(handle: handle, offset: 0, partValue: part))))
        }
        let queued: Bool
        if case .prepareWriteResponse? = PDUCoding.decoded(first) { queued = true } else { queued = false }
        if queued && received.count == 1 {
            return .request(PDUCoding.bytes(.executeWriteRequest(ExecuteWriteRequest(flags: .cancel))))
        }
        if queued && code == .writeNotPermitted && !mayQueue {
            return .finish(.fail("the IUT queued a part for \(handle), an attribute the spec makes unwritable "
                                 + "(Vol 3 Part F §3.4.6.1: Write Not Permitted)"))
        }
        if queued && code == .writeNotPermitted {
            return .finish(.inconclusive("the IUT queued a part for \(handle) although its properties lack every write "
                                         + "property; the precondition is taken from the properties (no IXIT file yet)"))
        }
        return .finish(Judge.error(first, request: .prepareWriteRequest, handle: handle, code: code, spec: "Vol 3 Part F §3.4.6.1"))
    }
}
