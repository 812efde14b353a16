import ATT
import Capture
import FixtureTestSupport
import Replay
import Testing

/// The replay driver, checked with a target that answers as the captured server did
/// (seen from the other controller of the same btmon capture).
@Suite struct ServerReplayTests {
    /// Answers each request with the response the captured server gave to the same bytes,
    /// in order; `tamper` rewrites one answer to provoke a divergence.
    struct CapturedServer: ATTReplayTarget {
        var answers: [([UInt8], [UInt8])]
        var tamper: (([UInt8]) -> [UInt8])?

        init(_ server: ATTConversation, tamper: (([UInt8]) -> [UInt8])? = nil) {
            answers = server.transactions.compactMap { t in
                guard let r = t.response, server.sender(of: t.request) == .client else { return nil }
                return (Array(server.pdus[t.request].bytes), Array(server.pdus[r].bytes))
            }
            self.tamper = tamper
        }

        mutating func receive(_ pdu: ArraySlice<UInt8>, at timestamp: Int64) -> [[UInt8]] {
            guard let i = answers.firstIndex(where: { $0.0[...] == pdu }) else { return [] }
            let answer = answers.remove(at: i).1
            if let t = tamper {
                tamper = nil
                return [t(answer)]
            }
            return [answer]
        }
    }

    func conversations() throws -> (client: ATTConversation, server: ATTConversation) {
        let all = try ATTConversationCollector.conversations(path: Fixtures.capturePath("kernel/bluez_hr_mtu517.btsnoop"))
        let client = try #require(all.first { $0.localRole == .client })
        let server = try #require(all.first { $0.localRole == .server })
        return (client, server)
    }

    @Test func faithfulServerMatchesEverything() throws {
        let (client, server) = try conversations()
        var target = CapturedServer(server)
        let report = ServerReplay.run(client, against: &target)
        #expect(report.diverged == 0, "\(report)")
        // Every client PDU but the confirmations, which answer indications not replayed.
        let fed = client.pdus.indices.filter {
            client.sender(of: $0) == .client && ATTOpcode(client.pdus[$0].opcode!).kind != .confirmation
        }
        #expect(report.matched == fed.count)
        #expect(report.notReplayed > 0, "the capture has notifications and an indication")
        #expect(report.notReplayed == client.pdus.indices.filter {
            let kind = ATTOpcode(client.pdus[$0].opcode!).kind
            return kind == .notification || kind == .indication || kind == .confirmation
        }.count)
    }

    @Test func aDifferentAnswerIsTheFirstDivergence() throws {
        let (client, server) = try conversations()
        // Our "server" claims a smaller MTU.
        var target = CapturedServer(server) { answer in answer.first == 0x03 ? [0x03, 0x17, 0x00] : answer }
        let report = ServerReplay.run(client, against: &target)
        #expect(report.diverged == 1)
        let first = try #require(report.divergences.first)
        #expect(first.expected == [0x03, 0x05, 0x02])
        #expect(first.actual == [0x03, 0x17, 0x00])
        // Both answers decoded once, when the divergence was found.
        guard case let .exchangeMTUResponse(captured)? = first.expectedDecoded,
              case let .exchangeMTUResponse(ours)? = first.actualDecoded
        else { Issue.record("\(String(describing: first.expectedPDU)) \(String(describing: first.actualPDU))"); return }
        #expect(captured.serverRxMTU == 517 && ours.serverRxMTU == 23)
        #expect(first.cause == nil && report.explained == 0)
    }
}
