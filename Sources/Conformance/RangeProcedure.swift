import ATT
import BluetoothCore

/// A discovery procedure over a handle range (Vol 3 Part G §4.4–§4.7): the first request
/// covers the range, each next one starts after the last handle the IUT named, until
/// the IUT answers Attribute Not Found naming the request's starting handle or the range
/// is covered. Every response is checked for the rules all of them share: no longer than
/// ATT_MTU, entries inside the requested range and in ascending order. A response's own
/// checks come from `check`, which returns the last handle the response covers or why
/// the response breaks a rule.
struct RangeProcedure: Sendable {
    var range: AttributeHandleRange
    var requestOpcode: ATTOpcode
    var request: @Sendable (AttributeHandleRange) -> [UInt8]
    /// Checks one decoded response to a request over the given range.
    var check: @Sendable (ATTPDU, AttributeHandleRange) -> Result<AttributeHandle, Violation>
    /// The verdict once the procedure completed, from every response.
    var judge: @Sendable ([ATTPDU]) -> ConformanceTestVerdict
    var mtu: Int

    struct Violation: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    func step(_ t: Transcript) -> ProcedureStep {
        guard let last = t.lastReceived else {
            return t.sentCount == 0 ? .request(request(range)) : .finish(.fail("no answer"))
        }
        guard t.sentCount < DiscoveryWalk.requestLimit else {
            return .finish(.fail("the procedure did not end within \(DiscoveryWalk.requestLimit) requests"))
        }
        let sent = t.exchange.last { $0.direction == .testerToIUT }?.bytes ?? []
        guard let asked = Judge.requestRange(sent) else { return .finish(.fail("no request to judge")) }
        guard last.count <= mtu else {
            return .finish(.fail("\(PDUCoding.name(last)) is \(last.count) octets, longer than ATT_MTU \(mtu) (Vol 3 Part F §3.2.8)"))
        }
        switch PDUCoding.decode(last) {
        case .failure(let e):
            return .finish(.fail("malformed answer \(hexString(last)): \(e)"))
        case .success(.errorResponse(let e)):
            if e.errorCode == .attributeNotFound {
                guard e.requestOpcode == requestOpcode else {
                    return .finish(.fail("Error Response names request opcode \(e.requestOpcode.name), not \(requestOpcode.name)"))
                }
                guard e.handle == asked.start else {
                    return .finish(.fail("Attribute Not Found names handle \(e.handle), not the starting handle \(asked.start) "
                                         + "(Vol 3 Part F §3.4.1.1)"))
                }
                return .finish(judge(responses(t)))
            }
            return .finish(Judge.declined(e) ?? .fail("\(requestOpcode.name) over \(asked) refused with \(e.errorCode) "
                                                      + "on \(e.handle); only Attribute Not Found ends a discovery"))
        case .success(let pdu):
            switch check(pdu, asked) {
            case .failure(let v): return .finish(.fail(v.reason))
            case .success(let reached):
                guard reached < range.end, let next = reached.successor else { return .finish(judge(responses(t))) }
                return .request(request(AttributeHandleRange(start: next, end: range.end)))
            }
        }
    }

    private func responses(_ t: Transcript) -> [ATTPDU] {
        t.received.compactMap(PDUCoding.decoded).filter { $0.opcode != .errorResponse }
    }

    /// Handles in ascending order, each inside `range`: the rule every discovery response keeps.
    static func ordered(_ handles: [AttributeHandle], inside range: AttributeHandleRange, what: String)
        -> Result<AttributeHandle, Violation> {
        guard let first = handles.first else { return .failure(Violation("\(what) with no entry")) }
        var previous: AttributeHandle?
        for h in handles {
            guard range.contains(h) else {
                return .failure(Violation("\(what) names handle \(h), outside the requested range \(range) (Vol 3 Part F §3.4)"))
            }
            if let p = previous, h <= p {
                return .failure(Violation("\(what) lists handle \(h) after \(p): entries must ascend (Vol 3 Part F §3.4)"))
            }
            previous = h
        }
        return .success(handles.last ?? first)
    }
}
