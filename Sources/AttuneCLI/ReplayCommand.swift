import ATT
import ATTPresentation
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

        Splits the capture into ATT conversations (one per connection; a btmon capture of
        both ends holds each twice, and the mirrored copy is skipped) and re-runs one side:

          --as server   feed the captured client's requests to our GATT server and compare
                        its responses with the captured server's, byte for byte. Our
                        server serves --database, or else a database rebuilt from the
                        captured responses; its receive MTU is the captured server's.
                        Conversations run in order on one server, so writes carry over.
          --as client   infer the GATT procedures the captured client ran, have our GATT
                        client run them, compare every PDU it sends with the captured
                        client's and answer it with the captured server's response
          --conn N      only connections with this handle (decimal or 0x hex)
          --database F  a database in attune-gatt-db/1 JSON (Docs/database-json.md); of a
                        multi-database file, --database-name's, else the first by name
          --all         print every divergence, not only the first of each conversation

        Notifications and indications the captured server sent on its own are not
        replayed as server (its application triggered them); as client they are fed in
        and our confirmations compared. Per conversation it prints the first divergence
        with both decodings and the known cause when there is one, then a summary ending
        in "N matched, M diverged"; the exit status is 0 when the replay ran.
        """
    static let options: Set<String> = ["as", "conn", "database", "database-name"]
    static let flags: Set<String> = ["all"]

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            throw CLIError.usage("give exactly one capture file")
        }
        guard let side = arguments.option("as") else { throw CLIError.usage("say which side to replay: --as server") }
        guard side == "server" || side == "client" else {
            throw CLIError.usage("--as \(side): say --as server or --as client")
        }
        var handle: UInt16?
        if let text = arguments.option("conn") {
            handle = text.hasPrefix("0x") ? UInt16(text.dropFirst(2), radix: 16) : UInt16(text)
            if handle == nil { throw CLIError.usage("--conn \(text) is not a connection handle") }
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
                throw CLIError.failure("\(dbPath): \(error)")
            }
        }
        let all: [ATTConversation]
        do {
            all = try ATTConversationCollector.conversations(path: path)
        } catch {
            throw CLIError.failure("\(path): \(error)")
        }
        var seen: Set<[[UInt8]]> = []
        var conversations: [ATTConversation] = []
        for c in all where handle.map({ $0 == c.handle }) ?? true {
            // Both ends of a virtual link in one btmon capture: the same PDUs twice.
            let signature = c.pdus.map { Array($0.bytes) }
            if seen.insert(signature).inserted { conversations.append(c) }
        }
        guard !conversations.isEmpty else { throw CLIError.failure("\(path): no ATT conversation to replay") }
        if side == "client" {
            return printReports(conversations, ClientReplay.run(conversations), all: arguments.flag("all"),
                                header: "our client performing the captured client's procedures")
        }
        let database: AttributeDatabase
        let origin: String
        if let given {
            database = given
            origin = "the database given"
        } else {
            let rebuilt = CapturedDatabase(conversations: conversations)
            do {
                let json = try JSONSerialization.jsonObject(with: Data(rebuilt.json.description.utf8))
                database = try DatabaseJSON.database(from: json)
            } catch {
                throw CLIError.failure("cannot rebuild a database from the capture: \(error)")
            }
            origin = "a database rebuilt from the capture (\(rebuilt.attributes.count) attributes)"
        }
        var serverMTU: UInt16?
        for c in conversations {
            for pdu in c.pdus { if case let .success(.exchangeMTUResponse(r)) = pdu.pdu { serverMTU = serverMTU ?? r.serverRxMTU } }
        }
        Output.data("our server on \(origin)" + (serverMTU.map { ", receive MTU \($0) as captured" } ?? ""))
        var target = GATTServerReplayTarget(database: database, rxMTU: serverMTU)
        let reports = ServerReplay.run(conversations, against: &target, databaseRebuilt: given == nil)
        return printReports(conversations, reports, all: arguments.flag("all"), header: nil)
    }

    static func printReports(_ conversations: [ATTConversation], _ reports: [ReplayReport], all: Bool, header: String?) -> Int32 {
        if let header { Output.data(header) }
        var matched = 0, diverged = 0, explained = 0
        for (c, report) in zip(conversations, reports) {
            let peer = c.connection.map { " peer \($0.peerAddress)" } ?? ""
            Output.data("hci\(c.controller) connection 0x\(String(c.handle, radix: 16))\(peer): \(c.pdus.count) ATT PDUs")
            Output.data(report.description.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
            if all {
                for d in report.divergences.dropFirst() {
                    Output.data(d.description.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
                }
            }
            matched += report.matched
            diverged += report.diverged
            explained += report.explained
        }
        Output.data("\(matched) matched, \(diverged) diverged (\(explained) explained)")
        return 0
    }
}
