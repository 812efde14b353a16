import Testing
import ATT
@testable import GATT
import HexTestSupport

/// A PDU sent the wrong way: the engines' dispatch is typed by direction, so these pin
/// what happens before the PDU ever reaches it.
@Suite struct WrongDirectionTests {
    /// A client-only link answers a request with Request Not Supported and stays open.
    @Test func requestReachingAClientGetsRequestNotSupported() {
        var connection = GATTLink()
        let actions = connection.receive(bytes("0a0300")[...], at: .zero)
        guard case .send(let reply)? = actions.first, actions.count == 1 else {
            Issue.record("expected one reply, got \(actions)"); return
        }
        #expect(hexString(reply) == "010a000006")
        #expect(!connection.bearer.isClosed)
    }

    /// A response with no request of the server outstanding closes the bearer unanswered.
    @Test func responseReachingAServerClosesTheBearer() {
        var h = ServerHarness(testDatabase())
        #expect(h.send("0b00").isEmpty)
        #expect(h.events == [.connectionClosed(1, .unexpectedResponse(.readResponse))])
    }

    /// A notification reaching a server is not one it serves: the link's client engine
    /// takes it, nothing is answered and the link stays up.
    @Test func notificationReachingAServerGoesToTheLinksClient() {
        var h = ServerHarness(testDatabase())
        #expect(h.send("1b030001").isEmpty)
        #expect(h.events == [.client(1, .deliver(.notification(3, [1][...])))])
        #expect(h.server.connectionIDs == [1])
    }
}
