import ATT
import BluetoothCore
import GATT

extension ServerTestCatalog {
    /// How many Prepare Write Requests the overflow probe sends before it gives up on
    /// filling the queue.
    static let prepareOverflowLimit = 64

    static let prepareQueueOverflow = ServerTestCase(
        "ATTUNE/SR/ROB/PQ-01", "Prepare-queue overflow", precondition: "a writable characteristic whose value discovery read",
        spec: "Vol 3 Part F §3.4.6.1–§3.4.6.3") { p, t in
        guard let c = writableKnown(p), let value = p.values[c.valueHandle]?.bytes else {
            return .finish(.notApplicable("no characteristic with the Write property and a value discovery read"))
        }
        let h = c.valueHandle
        let prepare = ProbePDUs.prepareWrite(h, offset: 0, value.prefix(max(1, p.mtu - 5)))
        let sent = t.exchange.filter { $0.direction == .testerToIUT }.map(\.bytes)
        guard let answer = t.lastReceived else { return .request(prepare) }
        // The cancel's answer ends the probe; the verdict rests on what the prepares got.
        if sent.last?.first == ATTOpcode.executeWriteRequest.rawValue {
            let prepares = Array(t.received.dropLast())
            let cancel = Judge.response(answer, is: .executeWriteResponse, spec: "Vol 3 Part F §3.4.6.3")
            guard case .pass = cancel else { return .finish(cancel) }
            return .finish(overflowVerdict(prepares, prepare: prepare, handle: h))
        }
        if ProbePDUs.echoes(answer, prepare), t.received.count < prepareOverflowLimit { return .request(prepare) }
        if t.received.count == 1, case .errorResponse(let e)? = PDUCoding.decoded(answer), let declined = Judge.declined(e) {
            return .finish(declined)
        }
        return .request(ProbePDUs.executeWrite(commit: false))
    }

    /// Every prepare echoed until the IUT said Prepare Queue Full (or never refused).
    static func overflowVerdict(_ answers: [[UInt8]], prepare: [UInt8], handle: AttributeHandle) -> ConformanceTestVerdict {
        for (n, answer) in answers.enumerated() where !ProbePDUs.echoes(answer, prepare) {
            guard case .errorResponse(let e)? = PDUCoding.decoded(answer) else {
                return .fail("Prepare Write \(n + 1) was answered with \(PDUCoding.name(answer)) \(hexString(answer)), not a "
                             + "Prepare Write Response echoing it (Vol 3 Part F §3.4.6.2)")
            }
            if let declined = Judge.declined(e) { return declined }
            let v = Judge.error(answer, request: .prepareWriteRequest, handle: handle, code: .prepareQueueFull,
                                spec: "Vol 3 Part F §3.4.6.1: a full queue is Prepare Queue Full")
            guard case .pass = v else { return v }
            return .pass(note: "Prepare Queue Full after \(n) queued prepared writes")
        }
        return .pass(note: "the IUT queued \(answers.count) prepared writes without refusing one; no overflow reached")
    }

    /// The first characteristic with the Write and Read properties whose value discovery
    /// read whole, outside the GAP and GATT services: their characteristics mean something
    /// to the IUT's stack (Client Supported Features cannot be cleared once set), so the
    /// probes' patterns must not land there.
    static func writableKnown(_ p: IUTProfile) -> DiscoveredCharacteristic? {
        let stackServices: Set<BluetoothUUID> = [BluetoothUUID(0x1800), BluetoothUUID(0x1801)]
        return p.database.services.filter { !stackServices.contains($0.uuid) }.flatMap(\.characteristics)
            .sorted { $0.valueHandle < $1.valueHandle }
            .first { $0.properties.contains(.write) && $0.properties.contains(.read) && p.values[$0.valueHandle]?.bytes != nil }
    }

    static let longWriteOf512 = ServerTestCase(
        "ATTUNE/SR/ROB/WR-01", "A long write of 512 octets, the attribute maximum",
        precondition: "a characteristic with the Read and Write properties whose value discovery read",
        spec: "Vol 3 Part F §3.2.9, §3.4.6") { p, t in oversizedWrite(512, p, t) }

    static let longWriteOf513 = ServerTestCase(
        "ATTUNE/SR/ROB/WR-02", "A long write of 513 octets, one past the attribute maximum",
        precondition: "a characteristic with the Read and Write properties whose value discovery read",
        spec: "Vol 3 Part F §3.2.9, §3.4.6.3") { p, t in oversizedWrite(513, p, t) }

    /// How a long write of `size` octets ended.
    enum LongWriteOutcome {
        /// The Execute Write Response came: the value must be written back.
        case written(ConformanceTestVerdict)
        /// The IUT refused it at Execute Write, which also empties its queue.
        case refusedAtExecute(ConformanceTestVerdict)
        /// The IUT refused a Prepare Write: the queue must be cancelled.
        case stoppedAtPrepare(ConformanceTestVerdict)
    }

    /// A long write of `size` octets with Prepare Write (an ATT_MTU of 64 cannot carry 512
    /// octets in one Write Request), then the value discovery read written back. At most
    /// 512 octets must be taken (unless the attribute's own maximum is shorter, refused
    /// with Invalid Attribute Value Length); 513 must be refused with it (§3.2.9).
    static func oversizedWrite(_ size: Int, _ p: IUTProfile, _ t: Transcript) -> ProcedureStep {
        guard let c = writableKnown(p), let original = p.values[c.valueHandle]?.bytes else {
            return .finish(.notApplicable("no characteristic with the Read and Write properties and a value discovery read"))
        }
        let h = c.valueHandle
        let plan = ProbePDUs.longWrite(h, (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }, mtu: p.mtu)
        let answers = t.received
        var outcome: LongWriteOutcome?
        var end = 0
        for (i, answer) in answers.prefix(plan.count).enumerated() {
            end = i + 1
            let isExecute = i == plan.count - 1
            if !isExecute, ProbePDUs.echoes(answer, plan[i]) { continue }
            if isExecute, answer.first == ATTOpcode.executeWriteResponse.rawValue {
                outcome = .written(size > DiscoveryWalk.maximumValueLength
                    ? .fail("the IUT took a long write of \(size) octets; no attribute value is longer than 512 octets, "
                            + "so Execute Write must be refused with Invalid Attribute Value Length (Vol 3 Part F §3.2.9, §3.4.6.3)")
                    : .pass(note: "\(size) octets written in \(plan.count - 1) parts"))
                break
            }
            let verdict = longWriteRefusal(answer, size: size, handle: h, atExecute: isExecute, part: i + 1)
            outcome = isExecute ? .refusedAtExecute(verdict) : .stoppedAtPrepare(verdict)
            break
        }
        guard let outcome else { return .request(plan[answers.count]) }
        let after = Array(answers.dropFirst(end))
        switch outcome {
        case .refusedAtExecute(let v):
            return .finish(v)
        case .stoppedAtPrepare(let v):
            guard let cancelled = after.first else { return .request(ProbePDUs.executeWrite(commit: false)) }
            let cancel = Judge.response(cancelled, is: .executeWriteResponse, spec: "Vol 3 Part F §3.4.6.3")
            guard case .pass = cancel else { return .finish(cancel) }
            return .finish(v)
        case .written(let v):
            let restore = ProbePDUs.longWrite(h, original, mtu: p.mtu)
            for (i, answer) in after.enumerated() {
                let good = i == restore.count - 1 ? answer.first == ATTOpcode.executeWriteResponse.rawValue
                    : ProbePDUs.echoes(answer, restore[i])
                // Writing back is hygiene, not the rule judged: a refusal is noted only.
                guard good else {
                    let note = "writing back the \(original.count) octets discovery read got \(PDUCoding.name(answer)) "
                        + hexString(answer)
                    switch v {
                    case .fail(let r): return .finish(.fail(r + "; " + note))
                    case .pass(let n): return .finish(.pass(note: (n.map { $0 + "; " } ?? "") + note))
                    default: return .finish(v)
                    }
                }
            }
            if after.count < restore.count { return .request(restore[after.count]) }
            return .finish(v)
        }
    }

    /// An Error Response to part `part` (or to Execute Write) of a long write of `size` octets.
    static func longWriteRefusal(_ answer: [UInt8], size: Int, handle: AttributeHandle, atExecute: Bool,
                                 part: Int) -> ConformanceTestVerdict {
        let request: ATTOpcode = atExecute ? .executeWriteRequest : .prepareWriteRequest
        guard case .errorResponse(let e)? = PDUCoding.decoded(answer) else {
            return .fail("\(request.name) \(part) of a \(size)-octet long write was answered with \(PDUCoding.name(answer)) "
                         + "\(hexString(answer)) (Vol 3 Part F §3.4.6)")
        }
        if let declined = Judge.declined(e) { return declined }
        if e.errorCode == .prepareQueueFull {
            return .inconclusive("the IUT's prepare queue filled at part \(part) of a \(size)-octet long write; "
                                 + "the length rule could not be reached")
        }
        guard e.errorCode == .invalidAttributeValueLength else {
            return .fail("a \(size)-octet long write was refused with \(e.errorCode) at \(request.name); a value past an "
                         + "attribute's maximum length is Invalid Attribute Value Length (Vol 3 Part F §3.2.9, §3.4.6.3)")
        }
        let v = Judge.error(answer, request: request, handle: atExecute ? handle : handle, code: .invalidAttributeValueLength,
                            spec: "Vol 3 Part F §3.4.6.3")
        guard case .pass = v else { return v }
        let when = atExecute ? "at Execute Write" : "at Prepare Write \(part), before Execute Write, where §3.4.6.1 places the check"
        if size > DiscoveryWalk.maximumValueLength { return .pass(note: "Invalid Attribute Value Length \(when)") }
        return .pass(note: "Invalid Attribute Value Length \(when): this attribute's own maximum is shorter than 512 octets, "
                     + "which Vol 3 Part F §3.2.9 allows")
    }
}
