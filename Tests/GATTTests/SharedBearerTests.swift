import Testing
import ATT
@testable import GATT

/// ATT is symmetric: a link's one bearer carries our server's answers and our client's
/// requests at the same time.
@Suite struct SharedBearerTests {
    @Test func serverAnswersOnABearerTheLinkOwns() throws {
        var server = GATTServer(database: testDatabase())
        server.connect(1)
        var bearer = ATTBearer(rxMTU: 512)
        var out = GATTServerOutput()
        var wire: [UInt8] = []

        // Our client side sends a request on the same bearer first.
        try bearer.sendRequest(ReadRequest(handle: 3), into: &wire, at: .zero)
        #expect(bearer.outstandingRequest == .readRequest)

        // The peer's Exchange MTU request reaches our server through the link's bearer.
        let mtuRequest = bytes("020001")
        let event = bearer.receive(mtuRequest[...], at: .zero, into: &wire)
        server.handle(event, raw: mtuRequest[...], from: 1, bearer: &bearer, at: .zero, into: &out)
        #expect(out.pdus.map { hexString(out.bytes(of: $0)) } == ["030002"])
        #expect(bearer.mtu == 256)
        // Our outstanding request is untouched, and the peer's response completes it.
        let response = bytes("0b01")
        guard case .response(_, request: .readRequest) = bearer.receive(response[...], at: .zero, into: &wire) else {
            Issue.record("response not matched"); return
        }
    }

    @Test func exchangedMTUSizesResponses() {
        var h = ServerHarness(testDatabase())
        #expect(h.send("023000") == ["030002"])
        #expect(h.server.mtu(of: 1) == 48)
        let v = le(h.handle(of: 0x2A3E))
        _ = h.send("12" + v + String(repeating: "ab", count: 45))
        #expect(h.send("0a" + v) == ["0b" + String(repeating: "ab", count: 45)])
        #expect(h.server.receive(bytes("0a" + v), from: 1, at: .zero)
            == [.send(1, bytes("0b" + String(repeating: "ab", count: 45)))])
    }
}
