import ATT
import GATTTestSupport
import Testing
@testable import GATT

/// A link end whose one bearer carries our client's requests and our server's answers,
/// routed the way a link owner does: requests, commands and confirmations to the server;
/// responses, notifications and indications to the client; a close to both.
struct DualRoleEnd {
    var bearer: ATTBearer
    var client: GATTClient
    var server: GATTServer
    var out = GATTServerOutput()
    var results: [GATTRequestID: Result<GATTClientResponse, GATTClientError>] = [:]
    var events: [GATTClientEvent] = []

    init(database: AttributeDatabase) {
        bearer = ATTBearer(rxMTU: 247)
        client = GATTClient(configuration: GATTClientConfiguration(rxMTU: 247, discoversOnStart: true))
        server = GATTServer(database: database)
        server.connect(1)
    }

    /// PDUs to put on the wire, gathered from both engines.
    mutating func take(_ actions: [GATTClientAction]) -> [[UInt8]] {
        var wire: [[UInt8]] = []
        for a in actions {
            switch a {
            case let .send(b): wire.append(b)
            case let .complete(id, r): results[id] = r
            case let .deliver(e): events.append(e)
            default: break
            }
        }
        for pdu in out.pdus { wire.append(Array(out.bytes(of: pdu))) }
        out.removeAll()
        return wire
    }

    mutating func start() -> [[UInt8]] {
        var actions: [GATTClientAction] = []
        client.start(bearer: &bearer, at: .zero, into: &actions)
        return take(actions)
    }

    mutating func perform(_ command: GATTClientCommand) -> (GATTRequestID, [[UInt8]]) {
        var actions: [GATTClientAction] = []
        let id = client.perform(command, bearer: &bearer, at: .zero, into: &actions)
        return (id, take(actions))
    }

    mutating func receive(_ pdu: [UInt8]) -> [[UInt8]] {
        var reply: [UInt8] = []
        let event = bearer.receive(pdu[...], at: .zero, into: &reply)
        var wire: [[UInt8]] = reply.isEmpty ? [] : [reply]
        var actions: [GATTClientAction] = []
        switch event {
        case .request, .command, .confirmation:
            server.handle(event, raw: pdu[...], from: 1, bearer: &bearer, at: .zero, into: &out)
        case .closed:
            server.handle(event, raw: pdu[...], from: 1, bearer: &bearer, at: .zero, into: &out)
            client.handle(event, bytes: pdu[...], bearer: &bearer, at: .zero, into: &actions)
        default:
            client.handle(event, bytes: pdu[...], bearer: &bearer, at: .zero, into: &actions)
        }
        wire += take(actions)
        return wire
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
        #expect(a.bearer.mtu == 247 && b.bearer.mtu == 247)
        #expect(!a.bearer.isClosed && !b.bearer.isClosed)

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
