import ATT
import Capture
import Foundation
import GATT
import Replay

/// `attune replay FILE --as server`: re-run one side of a capture against our engines.
enum ReplayCommand: CLICommand {
    static let name = "replay"
    static let summary = "replay one side of a capture against our GATT engines and report divergences"
    static let usage = """
        usage: attune replay FILE --as server|client [--conn HANDLE] [--database DB.json [--database-name NAME]] [--all]
               attune replay FILE --as client --against ADDR [--random] [--conn HANDLE] [--transport T] [--snoop FILE]

        Streams the capture as ATT conversations (one per connection; a btmon capture of
        both ends holds each twice, and the mirrored copy is skipped) and re-runs one side,
        printing each conversation as it ends. A conversation is read and replayed in
        pieces, so memory stays bounded (under 64 MB) however long a connection lasts,
        and a FIFO of an endless capture replays as it comes:

          --as server   feed the captured client's requests to our GATT server and compare
                        its responses with the captured server's, byte for byte. Our
                        server serves --database, or else a database rebuilt from the
                        captured responses (a file is read twice for that: once to
                        rebuild, once to replay; a FIFO meets the database rebuilt from
                        what came so far); its receive MTU is the one the captured server
                        announced in that conversation. Conversations run in order on
                        one server, so writes carry over.
          --as client   infer the GATT procedures the captured client ran, have our GATT
                        client run them, compare every PDU it sends with the captured
                        client's and answer it with the captured server's response
                        (cancelled prepared writes are prepared and cancelled; signed
                        writes signed from the captured counter, compared but for the MAC)
          --conn N      only connections with this handle (decimal or 0x hex)
          --database F  a database in attune-gatt-db/1 JSON (Docs/database-json.md); of a
                        multi-database file, --database-name's, else the first by name
          --all         print every divergence, not only the first of each conversation

        Notifications and indications the captured server sent on its own are pushed
        by our server (as server) at the same place with the captured value, to the
        client if it subscribed, and compared; as client they are fed in and our
        confirmations compared. Per conversation it prints the first divergence
        with both decodings and the known cause when there is one, then a summary ending
        in "N matched, M diverged"; the exit status is 0 when the replay ran.

        With --against ADDR our central connects to a live peripheral over --transport
        (memory: the built-in demo peripheral) and performs the captured client's
        procedures on it, as captured (handles, ranges, values; writes included, so
        the device is written what the captured client wrote), one connection for the
        whole capture. Each procedure's result is compared with what our client makes of
        the captured server's answers (results, not PDUs: the live MTU may split values
        differently), printed with its time, and a divergence with the captured server's
        answers beside the live result. Exchange MTU is not repeated (the connection made
        its own); the summary ends with the time the live procedures took.
        """
    static let options: Set<String> = ["as", "conn", "database", "database-name", "against", "transport", "snoop"]
    static let flags: Set<String> = ["all", "random", "snoop-keys"]

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            throw CLIError.usage("give exactly one capture file")
        }
        guard let sideText = arguments.option("as") else { throw CLIError.usage("say which side to replay: --as server") }
        guard sideText == "server" || sideText == "client" else {
            throw CLIError.usage("--as \(sideText): say --as server or --as client")
        }
        var handle: UInt16?
        if let text = arguments.option("conn") {
            handle = text.hasPrefix("0x") ? UInt16(text.dropFirst(2), radix: 16) : UInt16(text)
            if handle == nil { throw CLIError.usage("--conn \(text) is not a connection handle") }
        }
        if let target = arguments.option("against") {
            guard sideText == "client" else { throw CLIError.usage("--against ADDR replays --as client") }
            guard arguments.option("database") == nil else { throw CLIError.usage("--database serves --as server; --against uses the live peripheral's") }
            return try await ReplayAgainstRun.run(path, against: target, connectionHandle: handle, arguments)
        }
        for option in ["transport", "snoop"] where arguments.option(option) != nil {
            throw CLIError.usage("--\(option) goes with --against ADDR")
        }
        var given: AttributeDatabase?
        if let dbPath = arguments.option("database") {
            guard let data = FileManager.default.contents(atPath: dbPath) else {
                throw CLIError.failure("cannot read \(dbPath)")
            }
            do {
                let all = try DatabaseJSON.databases(from: data)
                if let name = arguments.option("database-name") {
                    guard let db = all[name] else {
                        throw CLIError.failure("\(dbPath) has no database \(name); it has \(all.keys.sorted().joined(separator: ", "))")
                    }
                    given = db
                } else {
                    guard let first = all.keys.sorted().first else { throw CLIError.failure("\(dbPath) holds no database") }
                    given = all[first]
                }
            } catch let error as DatabaseError {
                // A syntax error comes placed by line, column and byte (JSONSyntaxError).
                throw CLIError.failure("\(dbPath): \(error)")
            }
        }
        let side: ReplaySession.Side = sideText == "client" ? .client : .server
        let all = arguments.flag("all")
        // Only the first divergence of a conversation is printed without --all.
        let bound = ReplaySession.DivergenceBound(perConversation: all ? 1000 : 1)
        var session: ReplaySession
        do {
            session = try ReplaySession(path: path, side: side, connectionHandle: handle, database: given, divergences: bound)
        } catch {
            throw CLIError.failure(failure(error, path: path))
        }
        var matched = 0, diverged = 0, explained = 0, conversations = 0
        // Conversation by conversation, as the session streams them: a capture that
        // never ends prints as it goes.
        while true {
            let step: ReplaySession.Step?
            do { step = try session.next() } catch {
                throw CLIError.failure(failure(error, path: path))
            }
            guard let step else { break }
            if conversations == 0 { Output.data(header(session)) }
            conversations += 1
            let peer = step.connection.map { " peer \($0.peerAddress)" } ?? ""
            let mtu = step.serverRxMTU.map { ", our server's receive MTU \($0) as captured" } ?? ""
            var block = ["hci\(step.controller) connection 0x\(String(step.handle, radix: 16))\(peer): \(step.pduCount) ATT PDUs\(mtu)",
                         indented(ReplayText.report(step.report))]
            if all {
                block += step.report.divergences.dropFirst().map { indented(ReplayText.divergence($0)) }
                if step.report.unkeptDivergences > 0 {
                    block.append("  … and \(step.report.unkeptDivergences) more divergences, counted but not kept "
                        + "(replay keeps \(bound.perConversation) per conversation, \(bound.totalBytes >> 20) MiB in all)")
                }
            }
            // Each conversation leaves at once, so that an endless capture shows as it goes.
            Output.live(block.joined(separator: "\n"))
            matched += step.report.matched
            diverged += step.report.diverged
            explained += step.report.explained
        }
        guard conversations > 0 else { throw CLIError.failure("\(path): no ATT conversation to replay") }
        for note in boundNotes(session) { Output.data(note) }
        Output.data("\(matched) matched, \(diverged) diverged (\(explained) explained)")
        return 0
    }

    static func header(_ session: ReplaySession) -> String {
        switch session.databaseSource {
        case nil: return "our client performing the captured client's procedures"
        case .given?: return "our server on the database given"
        case let .rebuilt(count)?: return "our server on a database rebuilt from the capture (\(count) attributes)"
        case .rebuiltWhileStreaming?:
            return "our server on a database rebuilt from the capture as it streams (each conversation meets what it and the ones before revealed)"
        }
    }

    /// What the bounds on replay's memory left out, when they left out anything.
    static func boundNotes(_ session: ReplaySession) -> [String] {
        // Each bound's count, and what to say when it is not zero.
        let bounds: [(count: Int, note: String)] = [
            (session.droppedValueBytes, "the rebuilt database left out \(session.droppedValueBytes) value bytes the capture showed "
                + "(past 512 bytes for one attribute or \(CapturedDatabase.valueBytesBound >> 20) MiB in all)"),
            (session.forcedCuts, "\(session.forcedCuts) requests or procedures outgrew the piece replay reads at a time "
                + "and were cut from their answers"),
            (session.forgottenConnections, "\(session.forgottenConnections) connections were forgotten (more than "
                + "\(CaptureDecoder.maximumConnections) open at once): their later PDUs name no peer"),
            (session.closedEarly, "\(session.closedEarly) conversations were ended early: more than "
                + "\(ATTConversationPieceStream.Limits().openConversations) were open at once"),
        ]
        return bounds.filter { $0.count > 0 }.map(\.note)
    }

    static func indented(_ text: String) -> String {
        text.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
    }

    static func failure(_ error: ReplayError, path: String) -> String {
        switch error {
        case .capture, .nothingToServe: return "\(path): \(error)"
        case .database: return "\(error)"
        }
    }
}
