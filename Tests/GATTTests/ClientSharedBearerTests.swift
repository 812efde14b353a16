import ATT
import GATTTestSupport
import Testing
@testable import GATT

/// A link end whose one bearer carries our client's requests and our server's answers:
/// a ``GATTServer`` whose link to the other end runs a client engine too, routing
/// requests, commands and confirmations to the server half and responses, notifications
/// and indications to the client half.
struct DualRoleEnd {
    var server: GATTServer
    var out = GATTServerOutput()
    var results: [GATTRequestID: Result<GATTClientResponse, GATTClientError>] = [:]
    var events: [GATTClientEvent] = []

    init(database: AttributeDatabase) {
        var configuration = GATTServerConfiguration()
        configuration.rxMTU = 247
        server = GATTServer(database: database, configuration: configuration)
        server.connect(1)
    }

    var client: GATTClient { server.client(of: 1)! }
    var mtu: Int { server.mtu(of: 1) ?? 0 }

    /// PDUs to put on the wire, and the client's results and events kept.
    mutating func take() -> [[UInt8]] {
        for event in out.events {
            switch event {
            case let .client(_, .complete(id, r)): results[id] = r
            case let .client(_, .deliver(e)): events.append(e)
            default: break
            }
        }
        let wire = out.pdus.map { Array(out.bytes(of: $0)) }
        out.removeAll()
        return wire
    }

    mutating func start() -> [[UInt8]] {
        server.startClient(on: 1, configuration: GATTClientConfiguration(rxMTU: 247, discoversOnStart: true),
                           at: .zero, into: &out)
        return take()
    }

    mutating func perform(_ command: GATTClientCommand) -> (GATTRequestID, [[UInt8]]) {
        let id = server.perform(command, on: 1, at: .zero, into: &out)!
        return (id, take())
    }

    mutating func receive(_ pdu: [UInt8]) -> [[UInt8]] {
        server.receive(pdu[...], from: 1, at: .zero, into: &out)
        return take()
    }
}

@Suite("Client and server sharing one bearer per link end")
struct ClientSharedBearerTests {
    @Test func bothEndsDiscoverEachOtherAtOnce() {
        var a = DualRoleEnd(database: ClientServerPipeTests.database())
        var b = DualRoleEnd(database: SyntheticDatabase.make(services: 3, characteristicsPerService: 2))
        var toB = a.start(), toA = b.start()
        var rounds = 0
        while (!toA.isEmpty || !toB.isEmpty) && rounds < 10_000 {
            let forB = toB, forA = toA
            toB = []; toA = []
            for pdu in forB { toA += b.receive(pdu) }
            for pdu in forA { toB += a.receive(pdu) }
            rounds += 1
        }
        #expect(a.client.isReady && b.client.isReady)
        #expect(a.client.database.differences(from: DiscoveredDatabase(expectedFrom: b.server.database)) == [])
        #expect(b.client.database.differences(from: DiscoveredDatabase(expectedFrom: a.server.database)) == [])
        #expect(a.mtu == 247 && b.mtu == 247)
        #expect(a.server.connectionIDs == [1] && b.server.connectionIDs == [1], "neither bearer closed")

        // Reads cross in flight: each end has one request of its own outstanding while it
        // answers the other's.
        let handleOnB = a.client.database.characteristics.last!.valueHandle
        let handleOnA = b.client.database.characteristic(uuid: ClientServerPipeTests.longRead)!.valueHandle
        let (ra, wa) = a.perform(.readLongValue(handleOnB))
        let (rb, wb) = b.perform(.readLongValue(handleOnA))
        toB = wa; toA = wb
        while !toA.isEmpty || !toB.isEmpty {
            let forB = toB, forA = toA
            toB = []; toA = []
            for pdu in forB { toA += b.receive(pdu) }
            for pdu in forA { toB += a.receive(pdu) }
        }
        #expect(a.results[ra]?.success == .value([2, 1]))
        #expect(b.results[rb]?.success == .value(ClientServerPipeTests.longValue))
    }
}
