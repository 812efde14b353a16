import ATT
import Capture
import GATT

/// A procedure the captured client ran, ready to run again against a live server: the
/// command our client performs for it, and what our client makes of the captured
/// server's answers, to compare with what the live server's answers make
/// (`attune replay --as client --against`).
///
/// Results are compared rather than PDUs: a live server may settle on another MTU, and
/// then splits long values and discovery responses differently while answering the same.
public struct CapturedProcedureRun: Sendable {
    public var procedure: CapturedProcedure
    /// What our client performs; nil when it has no command for the procedure
    /// (cancelled prepared writes, signed writes without the peer's key, unknown PDUs).
    public var command: GATTClientCommand?
    /// What our client made of the captured server's answers; nil when the capture has
    /// no answer to a request our client sent (its request differed from the captured
    /// one), or no command.
    public var captured: Result<GATTClientResponse, GATTClientError>?
    /// The captured server's answers to the procedure's requests, in order.
    public var answers: [CapturedATTPDU]

    /// The procedures of a conversation, each with its captured outcome. Our client runs
    /// them in order on one link, at the MTU the captured client asked for, fed the
    /// captured server's answers.
    public static func runs(in conversation: ATTConversation) -> [CapturedProcedureRun] {
        var session = ClientReplay.Session(conversation)
        return ClientProcedureInference.procedures(in: conversation).map { procedure in
            let answers = procedure.requests.compactMap { session.responseOf[$0].map { conversation.pdus[$0] } }
            guard let command = ClientReplay.command(for: procedure.kind) else {
                return CapturedProcedureRun(procedure: procedure, command: nil, captured: nil, answers: answers)
            }
            let outcome = session.outcome(of: command, expecting: procedure.requests)
            return CapturedProcedureRun(procedure: procedure, command: command, captured: outcome, answers: answers)
        }
    }
}

extension ClientReplay.Session {
    /// Performs `command`, answering each request our client sends with the captured
    /// answer to the captured request it equals; nil when one differs (the procedure is
    /// then cancelled and unblocked, as ``perform(_:expecting:)`` does).
    mutating func outcome(of command: GATTClientCommand, expecting requests: [Int])
        -> Result<GATTClientResponse, GATTClientError>? {
        var expected = requests[...]
        let now = time(requests.first ?? 0)
        let (id, first) = connection.perform(command, at: now)
        var pending = first[...]
        var result: Result<GATTClientResponse, GATTClientError>?
        var diverged = false
        var steps = 0
        while let action = pending.popFirst(), steps < 100_000 {
            steps += 1
            switch action {
            case let .complete(done, outcome) where done == id:
                result = outcome
            case let .send(bytes):
                if diverged {
                    pending += unblock(bytes, at: now)
                    continue
                }
                if bytes == [0x18, 0x00], let next = expected.first,
                   conversation.pdus[next].bytes.first == 0x18, hasRefusedPart(requests) {
                    // Our client cancels the queue after a refused part where the captured
                    // client executed the accepted parts (DivergenceCause.refusedPartCancelsQueue):
                    // the outcome, the refusal, is the captured server's all the same, and a
                    // cancel is answered with Execute Write Response by any server.
                    expected.removeFirst()
                    pending += connection.receive([0x19], at: now)
                    continue
                }
                if let asked = nearbyRequest(equalTo: bytes, after: expected.first ?? requests.last ?? 0) {
                    // A request the captured client made as a procedure of its own (the
                    // read of an included service's 128-bit UUID after Find Included
                    // Services, say): the captured server's answer to it is as good.
                    if let r = responseOf[asked] { pending += connection.receive(conversation.pdus[r].bytes, at: time(r)) }
                    continue
                }
                guard let next = expected.first, conversation.pdus[next].bytes.elementsEqual(bytes) else {
                    diverged = true
                    pending += connection.cancel(id, at: now) + unblock(bytes, at: now)
                    continue
                }
                expected.removeFirst()
                if let r = responseOf[next] { pending += connection.receive(conversation.pdus[r].bytes, at: time(r)) }
            default:
                break
            }
        }
        return diverged ? nil : result
    }

    /// Whether the captured server refused one of these requests.
    func hasRefusedPart(_ requests: [Int]) -> Bool {
        requests.contains { i in
            if let r = responseOf[i], case .success(.errorResponse) = conversation.pdus[r].pdu { return true }
            return false
        }
    }

    /// The nearest captured client request equal to `bytes` and answered, within a few
    /// PDUs from `start` on (bounded, so that a long conversation costs no quadratic scan),
    /// unless it is the one expected next anyway.
    func nearbyRequest(equalTo bytes: [UInt8], after start: Int) -> Int? {
        guard start < conversation.pdus.count, !conversation.pdus[start].bytes.elementsEqual(bytes) else { return nil }
        for i in start..<min(conversation.pdus.count, start + 64)
        where conversation.sender(of: i) == .client && responseOf[i] != nil && conversation.pdus[i].bytes.elementsEqual(bytes) {
            return i
        }
        return nil
    }
}
