import ATT
import BluetoothCore

extension ServerTestCatalog {
    static let pipelinedRequests = ServerTestCase(
        "ATTUNE/SR/ROB/SEQ-01", "Two requests sent without waiting for the first response",
        precondition: "a readable characteristic whose value discovery read, and a handle no attribute has",
        spec: "Vol 3 Part F §3.3.2") { p, t in
        guard let a = p.readable.first(where: { p.values[$0.valueHandle]?.bytes != nil }),
              let value = p.values[a.valueHandle]?.bytes, let h = p.invalidHandle else {
            return .finish(.notApplicable("needs a readable value discovery read and an unused handle"))
        }
        // The tester breaks the sequential protocol on purpose: the first request is
        // valid and must be answered; what becomes of the second the spec leaves open.
        // A third request, sent after the first answer, finds where the IUT stands: it
        // reads the first value again, so its answer is the only later Read Response.
        let first = ProbePDUs.read(a.valueHandle.rawValue), second = ProbePDUs.read(h.rawValue)
        switch t.sentCount {
        case 0: return .command(first)
        case 1: return .request(second)
        default: break
        }
        let answers = t.received
        guard let firstAnswer = answers.first else { return .awaitResponse }
        switch Judge.readValue(firstAnswer, mtu: p.mtu) {
        case .verdict(.fail(let r)):
            return .finish(.fail("the first of two requests sent together must still be answered first "
                                 + "(Vol 3 Part F §3.3.2): \(r)"))
        case .verdict(let v):
            return .finish(v)
        case .ok(let v) where v != Array(value.prefix(p.mtu - 1)):
            return .finish(.fail("the first answer carries \(hexString(v)), not the value at \(a.valueHandle) the first request "
                                 + "read (\(hexString(Array(value.prefix(p.mtu - 1))))): the IUT lost or reordered it (Vol 3 Part F §3.3.2)"))
        case .ok:
            break
        }
        if t.sentCount == 2 { return .request(first) }
        let later = answers.dropFirst()
        guard later.contains(where: { $0.first == ATTOpcode.readResponse.rawValue }) else {
            return later.count >= 2 ? .finish(.fail("the IUT sent \(later.count) answers after the first without answering "
                                                    + "the third request (Vol 3 Part F §3.3.2)")) : .awaitResponse
        }
        return .finish(.pass(note: later.count > 1 ? "the IUT answered both requests, in order"
                             : "the IUT answered the first request and dropped the second, which §3.3.2 leaves open"))
    }

    /// The Client Rx MTU of the second Exchange MTU Request: the largest the spec allows,
    /// so a wrongly taken MTU shows.
    static let secondExchangeMTU: UInt16 = 517

    static let secondMTUExchange = ServerTestCase(
        "ATTUNE/SR/ROB/MTU-01", "A second Exchange MTU leaves ATT_MTU as it was",
        precondition: "a readable value longer than ATT_MTU − 1, and an IUT that took the first Exchange MTU",
        spec: "Vol 3 Part F §3.4.2.1–§3.4.2.2") { p, t in
        guard case .exchangeMTUResponse(let first)? = p.mtuExchange.last.flatMap({ PDUCoding.decoded($0.bytes) }) else {
            return .finish(.notApplicable("the IUT did not take the tester's first Exchange MTU"))
        }
        guard let c = p.readable.first(where: { p.isLong($0.valueHandle) }) else {
            return .finish(.notApplicable("no readable value longer than ATT_MTU − 1 = \(p.mtu - 1) to show the ATT_MTU in force"))
        }
        let answers = t.received
        guard let exchange = answers.first else {
            return .request([ATTOpcode.exchangeMTURequest.rawValue] + ProbePDUs.le(secondExchangeMTU))
        }
        guard let read = answers.dropFirst().first else { return .request(ProbePDUs.read(c.valueHandle.rawValue)) }
        let how: String
        switch PDUCoding.decoded(exchange) {
        case .exchangeMTUResponse(let r)?: how = "answered with Server Rx MTU \(r.serverRxMTU)"
        case .errorResponse(let e)?: how = "refused with \(e.errorCode)"
        default:
            return .finish(.fail("a second Exchange MTU was answered with \(PDUCoding.name(exchange)) \(hexString(exchange)); "
                                 + "it is a request and gets a response or an Error Response (Vol 3 Part F §3.3.2)"))
        }
        switch Judge.readValue(read, mtu: p.mtu) {
        case .verdict(.fail(let r)):
            return .finish(.fail("after a second Exchange MTU (\(how)): \(r); the ATT_MTU is set once per link "
                                 + "(Vol 3 Part F §3.4.2.2)"))
        case .verdict(let v):
            return .finish(v)
        case .ok(let v):
            let note = first.serverRxMTU <= p.mtu
                ? "; the IUT's Server Rx MTU \(first.serverRxMTU) is no larger than ATT_MTU \(p.mtu), so a change could not show"
                : ""
            return .finish(.pass(note: "the second Exchange MTU was \(how); a Read Response still carries \(v.count) octets "
                                 + "for ATT_MTU \(p.mtu)\(note)"))
        }
    }
}
