import ATT
import Capture

/// Replays the client side of captured conversations against a server engine: every
/// request and command the captured client sent is fed in, in order, and the engine's
/// response to each request is compared with the captured server's.
///
/// Notifications and indications the captured server's application sent on its own are
/// pushed by ours at the same place, with the captured value, and compared byte for byte
/// (a target that cannot push leaves them not replayed); the captured client's
/// confirmation goes to our server when ours sent the indication, since to a server that
/// sent none it would be a protocol error.
public enum ServerReplay {
    /// Replays conversations in order against one engine, so state that outlives a
    /// connection (written values) carries over as it did in the capture.
    /// - Parameter databaseRebuilt: whether the engine serves a database rebuilt from
    ///   this capture, so that gaps in it explain divergences.
    public static func run<Target: ATTReplayTarget>(_ conversations: [ATTConversation], against target: inout Target,
                                                    databaseRebuilt: Bool) -> [ReplayReport]
    {
        var explainer = ReplayExplainer(databaseRebuilt: databaseRebuilt)
        return conversations.map { c in
            target.begin(c)
            var report = run(c, against: &target)
            explainer.explain(&report, in: c)
            return report
        }
    }

    /// Replays one conversation (without explanations).
    public static func run<Target: ATTReplayTarget>(_ conversation: ATTConversation, against target: inout Target)
        -> ReplayReport
    {
        var report = ReplayReport()
        var pushedIndication = false
        var responseTo: [Int: Int] = [:]
        for t in conversation.transactions { if let r = t.response { responseTo[t.request] = r } }
        for (i, pdu) in conversation.pdus.enumerated() {
            guard let role = conversation.sender(of: i), let raw = pdu.opcode else { continue }
            let opcode = ATTOpcode(raw)
            if role == .server {
                guard opcode.kind == .notification || opcode.kind == .indication else { continue }
                // The captured server's application pushed a value: ours pushes the same.
                let pushed: (AttributeHandle, [UInt8])?
                switch pdu.pdu {
                case let .success(.handleValueNotification(n)): pushed = (n.handle, Array(n.value))
                case let .success(.handleValueIndication(n)): pushed = (n.handle, Array(n.value))
                default: pushed = nil
                }
                guard let (handle, value) = pushed,
                      let outputs = target.push(value, handle: handle, indication: opcode.kind == .indication,
                                                at: pdu.frame.timestamp)
                else {
                    report.notReplayed += 1
                    continue
                }
                let ours = outputs.first { $0.first.map { ATTOpcode($0).kind == opcode.kind } ?? false }
                if let ours, pdu.bytes.elementsEqual(ours) {
                    report.matched += 1
                    pushedIndication = pushedIndication || opcode.kind == .indication
                } else {
                    report.divergences.append(ReplayDivergence(index: i, input: pdu, expected: pdu, actual: ours,
                                                               role: .server))
                }
                continue
            }
            if opcode.kind == .confirmation {
                // The captured client's confirmation goes to our server only when ours
                // sent the indication it confirms; to a server that sent none it would be
                // a protocol error.
                if pushedIndication {
                    _ = target.receive(pdu.bytes, at: pdu.frame.timestamp)
                    pushedIndication = false
                } else {
                    report.notReplayed += 1
                }
                continue
            }
            let outputs = target.receive(pdu.bytes, at: pdu.frame.timestamp)
            // Only responses are compared; our server's own notifications or indications
            // are not answers to this input.
            let ours = outputs.first { $0.first.map { ATTOpcode($0).kind == .response } ?? false }
            let captured = responseTo[i].map { conversation.pdus[$0] }
            if opcode.kind != .request {
                // Commands get no response; any response is a divergence.
                if let ours {
                    report.divergences.append(ReplayDivergence(index: i, input: pdu, expected: nil, actual: ours))
                } else {
                    report.matched += 1
                }
                continue
            }
            if let captured, let ours, captured.bytes.elementsEqual(ours) {
                report.matched += 1
            } else if captured == nil, ours == nil {
                report.matched += 1
            } else {
                report.divergences.append(ReplayDivergence(index: i, input: pdu, expected: captured, actual: ours))
            }
        }
        return report
    }
}
