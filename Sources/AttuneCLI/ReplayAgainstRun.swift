import ATT
import Attune
import Capture
import GATT
import Replay

/// `attune replay FILE --as client --against ADDR`: the captured central's procedures run
/// again by our central against a live peripheral, each result compared with what the
/// captured server answered.
enum ReplayAgainstRun {
    static func run(_ path: String, against target: String, connectionHandle: UInt16?, _ arguments: Arguments)
        async throws -> Int32 {
        _ = try CentralContext.address(target)
        // Whole conversations: the live procedures run from each one's captured answers.
        var stream: ATTConversationStream
        do { stream = try ATTConversationStream(path: path) } catch {
            throw CLIError.failure(ReplayCommand.failure(.capture(error), path: path))
        }
        var selection = ConversationSelection(connectionHandle: connectionHandle)
        let context = try await CentralContext.open(arguments, addressFirst: false)
        let peripheral = try await context.connect(target, random: arguments.flag("random"))
        var counts: [LiveReplay.Outcome.Verdict: Int] = [:]
        var explained = 0, conversations = 0
        var durations: [Duration] = []
        Output.data("our central performing the captured client's procedures against \(target)")
        while true {
            let next: ATTConversation?
            do { next = try stream.next() } catch {
                throw CLIError.failure(ReplayCommand.failure(.capture(error), path: path))
            }
            guard let c = next else { break }
            guard selection.admits(c) else { continue }
            conversations += 1
            let peer = c.connection.map { " peer \($0.peerAddress)" } ?? ""
            Output.live("hci\(c.controller) connection 0x\(String(c.handle, radix: 16))\(peer): \(c.pdus.count) ATT PDUs")
            _ = await LiveReplay.run(c, against: peripheral) { outcome in
                counts[outcome.verdict, default: 0] += 1
                if outcome.cause != nil { explained += 1 }
                if outcome.live != nil { durations.append(outcome.duration) }
                Output.live(ReplayCommand.indented(text(outcome)))
            }
        }
        try await context.close(peripheral)
        guard conversations > 0 else { throw CLIError.failure("\(path): no ATT conversation to replay") }
        let total = durations.reduce(Duration.zero, +)
        let mean = durations.isEmpty ? Duration.zero : total / durations.count
        let slowest = durations.max() ?? .zero
        Output.data("\(counts[.matched] ?? 0) matched, \(counts[.diverged] ?? 0) diverged (\(explained) explained), "
            + "\(counts[.notReplayed] ?? 0) not replayed, \(counts[.notComparable] ?? 0) without a captured answer to compare; "
            + "\(durations.count) live procedures in \(milliseconds(total)), mean \(milliseconds(mean)), slowest \(milliseconds(slowest))")
        return 0
    }

    /// One procedure: its verdict and time, and for a divergence the captured server's
    /// answer beside the live one.
    static func text(_ o: LiveReplay.Outcome) -> String {
        let record = o.run.answers.first?.frame.recordIndex
        let head = "\(o.run.procedure)"
        switch o.verdict {
        case .matched:
            return "\(head): matched (\(milliseconds(o.duration)))"
        case .notReplayed:
            if case .exchangeMTU = o.run.procedure.kind { return "\(head): not replayed (the connection exchanged its own MTU)" }
            return "\(head): not replayed (our client has no command for it)"
        case .notComparable:
            return "\(head): live \(show(o.live)) (\(milliseconds(o.duration))); the capture holds no answer to our client's requests"
        case .diverged:
            var lines = ["\(head): DIVERGED (\(milliseconds(o.duration)))"
                + (record.map { ", captured answer at record \($0)" } ?? "")]
            for answer in o.run.answers.prefix(4) {
                let decoded = (try? answer.pdu.get()).map { "\($0)" } ?? "undecodable"
                lines.append("  captured server: \(decoded)  [\(hexString(answer.bytes))]")
            }
            if o.run.answers.count > 4 { lines.append("  captured server: … \(o.run.answers.count - 4) more answers") }
            lines.append("  captured: \(show(o.captured))")
            lines.append("  live:     \(show(o.live))")
            if let cause = o.cause { lines.append("  why:      \(ReplayText.text(cause))") }
            return lines.joined(separator: "\n")
        }
    }

    static func show(_ result: Result<GATTClientResponse, AttuneError>?) -> String {
        switch result {
        case nil: return "(nothing)"
        case let .failure(error)?: return "failed: \(error)"
        case let .success(response)?:
            switch response {
            case let .mtu(n): return "ATT_MTU \(n)"
            case let .value(v): return "value \(hexString(v))"
            case let .values(vs): return "values " + vs.map { hexString($0) }.joined(separator: " | ")
            case .done: return "done"
            default:
                let text = "\(response)"
                return text.count > 400 ? String(text.prefix(400)) + "…" : text
            }
        }
    }

    static func milliseconds(_ d: Duration) -> String {
        let (s, atto) = d.components
        let ms = Double(s) * 1000 + Double(atto) / 1e15
        return ms < 10 ? "\(Double(Int(ms * 100)) / 100) ms" : "\(Int(ms)) ms"
    }
}
