import Testing
import ATT
@testable import GATT
import HexTestSupport

/// ATT is symmetric: a link's one bearer carries our server's answers and our client's
/// requests at the same time.
@Suite struct SharedBearerTests {
    @Test func serverAnswersOnTheLinkWhileItsClientWaits() throws {
        var server = GATTServer(database: testDatabase())
        server.connect(1)
        var out = GATTServerOutput()

        // Our client on the same link sends a request first.
        let read = try #require(server.perform(.readValue(3), on: 1, at: .zero, into: &out))
        #expect(out.pdus.map { hexString(out.bytes(of: $0)) } == ["0a0300"])
        out.removeAll()

        // The peer's Exchange MTU request reaches the server half of the same link.
        server.receive(bytes("020001")[...], from: 1, at: .zero, into: &out)
        #expect(out.pdus.map { hexString(out.bytes(of: $0)) } == ["030002"])
        #expect(server.mtu(of: 1) == 256)
        out.removeAll()

        // Our outstanding request is untouched, and the peer's response completes it.
        server.receive(bytes("0b01")[...], from: 1, at: .zero, into: &out)
        #expect(out.events == [.client(1, .complete(read, .success(.value([1]))))])
    }

    @Test func aDisconnectFailsTheLinksOwnRequests() throws {
        var server = GATTServer(database: testDatabase())
        server.connect(1)
        var out = GATTServerOutput()
        let read = try #require(server.perform(.readValue(3), on: 1, at: .zero, into: &out))
        out.removeAll()
        server.disconnect(1, into: &out)
        #expect(out.events.contains(.client(1, .complete(read, .failure(.bearerClosed)))))
        #expect(out.pdus.isEmpty)
        #expect(server.perform(.readValue(3), on: 1, at: .zero, into: &out) == nil)
    }

    @Test func aNotificationFromTheCentralReachesTheLinksClient() {
        var server = GATTServer(database: testDatabase())
        server.connect(1)
        var out = GATTServerOutput()
        server.receive(bytes("1b2a00ff")[...], from: 1, at: .zero, into: &out)
        #expect(out.events == [.client(1, .deliver(.notification(0x2A, [0xFF][...])))])
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
