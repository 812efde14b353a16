import ATT

/// Replays the client side of a captured conversation against a server engine: every
/// request, command and confirmation the captured client sent is fed in, in order, and
/// the engine's response to each request is compared with the captured server's.
public enum ServerReplay {
    public static func run<Target: ATTReplayTarget>(_ conversation: ATTConversation, against target: inout Target)
        -> ReplayReport
    {
        var report = ReplayReport()
        var responseTo: [Int: Int] = [:]
        for t in conversation.transactions { if let r = t.response { responseTo[t.request] = r } }
        for (i, pdu) in conversation.pdus.enumerated() {
            guard let role = conversation.sender(of: i) else { continue }
            if role == .server {
                if let op = pdu.opcode, ATTOpcode(op).kind == .notification || ATTOpcode(op).kind == .indication {
                    report.notReplayed += 1
                }
                continue
            }
            let outputs = target.receive(pdu.bytes, at: pdu.frame.timestamp)
            // Only responses are compared; our server's own notifications or indications
            // are not answers to this input.
            let ours = outputs.first { $0.first.map { ATTOpcode($0).kind == .response } ?? false }
            let opcode = ATTOpcode(pdu.opcode ?? 0)
            let captured = responseTo[i].map { Array(conversation.pdus[$0].bytes) }
            if opcode.kind != .request {
                // Commands and confirmations get no response; any response is a divergence.
                if let ours {
                    report.divergences.append(ReplayDivergence(index: i, input: pdu, expected: nil, actual: ours))
                } else {
                    report.matched += 1
                }
                continue
            }
            if ours == captured {
                report.matched += 1
            } else {
                report.divergences.append(ReplayDivergence(index: i, input: pdu, expected: captured, actual: ours))
            }
        }
        return report
    }
}
