import ATT
import Capture
import CaptureTestSupport
import FixtureTestSupport
import Replay
import Testing
import WaitTestSupport

/// tshark pairs each response with its request and lists the request's handles on the
/// response too; our conversations, which pair them the same way, give the same lists.
/// (That every PDU and its own handles agree with tshark is CaptureTests'
/// `TSharkAgreementTests`.)
@Suite struct TSharkTransactionHandlesTests {
    @Test(arguments: Fixtures.captures)
    func handlesMatchTSharkTransactions(_ name: String) async throws {
        // Off the cooperative pool: tshark runs and long loops would hold one of its threads.
        try await offPool {
            try #require(TShark.path != nil, "tshark is not installed (.ci/run installs it)")
            let path = Fixtures.capturePath(name)
            let expected = try TShark.attPDUs(path, bytes: false)
            #expect(!expected.isEmpty, "tshark found no ATT PDUs in \(name)")
            var byRecord: [Int: (ATTPDU, ATTPDU?)] = [:]
            for c in try ATTConversationCollector.conversations(path: path) {
                var requestOf: [Int: Int] = [:]
                for t in c.transactions { if let r = t.response { requestOf[r] = t.request } }
                for (i, captured) in c.pdus.enumerated() {
                    guard case let .success(pdu) = captured.pdu else { continue }
                    let request = requestOf[i].flatMap { try? c.pdus[$0].pdu.get() }
                    byRecord[captured.frame.recordIndex + 1] = (pdu, request)
                }
            }
            for theirs in expected {
                let (pdu, request) = try #require(byRecord[theirs.frame], "\(name) frame \(theirs.frame): no PDU")
                #expect(tsharkStyleHandles(pdu, answering: request) == Set(theirs.handles),
                        "\(name) frame \(theirs.frame) \(pdu.opcode.name): handles vs tshark \(theirs.handles)")
            }
        }
    }
}
