import ATT
import GATTTestSupport
import Testing
@testable import GATT

@Suite("Client caching")
struct ClientCacheTests {
    static let hash = Array(UInt8(1)...16)

    /// GATT service with Service Changed (value 0x0003, CCCD 0x0004) and Database Hash
    /// (value 0x0006); a Battery service at 0x0010.
    static let cached = DiscoveredDatabase(services: [
        DiscoveredService(uuid: 0x1801, handleRange: AttributeHandleRange(start: 1, end: 6), characteristics: [
            DiscoveredCharacteristic(declarationHandle: 2, properties: [.indicate], valueHandle: 3, uuid: 0x2A05, endHandle: 4,
                                     descriptors: [DiscoveredDescriptor(handle: 4, uuid: 0x2902)]),
            DiscoveredCharacteristic(declarationHandle: 5, properties: [.read], valueHandle: 6, uuid: 0x2B2A, endHandle: 6),
        ]),
        DiscoveredService(uuid: 0x180F, handleRange: AttributeHandleRange(start: 0x10, end: 0x12), characteristics: [
            DiscoveredCharacteristic(declarationHandle: 0x11, properties: [.read], valueHandle: 0x12, uuid: 0x2A19, endHandle: 0x12),
        ]),
    ], databaseHash: hash)

    @Test func matchingDatabaseHashSkipsDiscovery() {
        var h = ClientHarness(configuration: GATTClientConfiguration(discoversOnStart: true), database: Self.cached)
        #expect(h.nextSent() == "080100ffff2a2b")
        h.receive([0x09, 18, 0x06, 0x00] + Self.hash)
        #expect(h.sent.isEmpty)
        #expect(h.events == [.ready(Self.cached)])
        #expect(h.connection.client.isReady)
    }

    @Test func differentDatabaseHashRediscoversAndReportsChanges() {
        var h = ClientHarness(configuration: GATTClientConfiguration(discoversOnStart: true, subscribesToServiceChanged: false),
                              database: Self.cached)
        #expect(h.nextSent() == "080100ffff2a2b")
        h.receive([0x09, 18, 0x06, 0x00] + Array(repeating: 0xEE, count: 16))
        #expect(h.nextSent() == "080100ffff3a2b")      // full discovery, BlueZ order
        h.receive(hex: "010801000a")
        #expect(h.nextSent() == "100100ffff0028")
        h.receive(hex: "1106" + "01000600" + "0118")     // only the GATT service remains
        #expect(h.nextSent() == "100700ffff0028")
        h.receive(hex: "011007000a")
        #expect(h.nextSent() == "100100ffff0128")
        h.receive(hex: "011001000a")
        #expect(h.nextSent() == "08010006000228")
        h.receive(hex: "010801000a")
        #expect(h.nextSent() == "08010006000328")
        h.receive(hex: "0907" + "020020" + "0300052a" + "050002" + "06002a2b")
        #expect(h.nextSent() == "08060006000328")
        h.receive(hex: "010806000a")
        #expect(h.nextSent() == "0404000400")
        h.receive(hex: "050104000229")
        #expect(h.nextSent() == "0a0600")                // Database Hash
        h.receive([0x0B] + Array(repeating: 0xEE, count: 16))
        #expect(h.sent.isEmpty)
        guard case let .servicesChanged(invalidated, discovered)? = h.events.first else { Issue.record("\(h.events)"); return }
        #expect(invalidated.map(\.uuid) == [0x180F])
        #expect(discovered.isEmpty)
        #expect(h.connection.client.database.databaseHash == Array(repeating: 0xEE, count: 16))
        guard case .ready? = h.events.last else { Issue.record("\(h.events)"); return }
    }

    @Test func serviceChangedIndicationRediscoversOnlyTheRange() {
        var h = ClientHarness(database: Self.cached)
        h.receive(hex: "1d0300" + "1000" + "1800")       // Service Changed 0x0010..0x0018
        #expect(h.nextSent() == "1e")
        #expect(h.nextSent() == "10100018000028")
        h.receive(hex: "1106" + "10001400" + "0d18")     // Heart Rate now at 0x0010..0x0014
        #expect(h.nextSent() == "10150018000028")
        h.receive(hex: "011015000a")
        #expect(h.nextSent() == "10100018000128")
        h.receive(hex: "011010000a")
        #expect(h.nextSent() == "08100014000228")
        h.receive(hex: "010810000a")
        #expect(h.nextSent() == "08100014000328")
        h.receive(hex: "0907" + "1100" + "10" + "1200" + "372a")
        #expect(h.nextSent() == "08120014000328")
        h.receive(hex: "010812000a")
        #expect(h.nextSent() == "0413001400")
        h.receive(hex: "0501" + "1300" + "0229")
        #expect(h.nextSent() == "0414001400")
        h.receive(hex: "010414000a")
        #expect(h.sent.isEmpty)
        guard case let .servicesChanged(invalidated, discovered)? = h.events.last else { Issue.record("\(h.events)"); return }
        #expect(invalidated.map(\.uuid) == [0x180F])
        #expect(discovered.map(\.uuid) == [0x180D])
        let db = h.connection.client.database
        #expect(db.services.map(\.uuid) == [0x1801, 0x180D])
        #expect(db.characteristic(valueHandle: 0x12)?.clientConfigurationHandle == 0x13)
    }

    @Test func secondConnectionSkipsDiscoveryWithTheFirstDatabase() throws {
        let server = GATTServer(database: ClientServerPipeTests.database())
        let configuration = GATTClientConfiguration(discoversOnStart: true)
        var first = GATTMemoryPipe(server: server, clientConfiguration: configuration)
        first.start()
        let fullDiscovery = first.pdusToServer
        var second = GATTMemoryPipe(server: server, clientConfiguration: configuration, clientDatabase: first.client.client.database)
        second.start()
        #expect(second.client.client.isReady)
        #expect(second.pdusToServer == 2)            // Exchange MTU and the Database Hash read
        #expect(fullDiscovery > 10)
        #expect(second.client.client.database == first.client.client.database)
    }

    @Test func exchangeMTUOnlyOnce() {
        var h = ClientHarness(mtu: 100)
        let id = h.perform(.exchangeMTU)
        #expect(h.sent.isEmpty)
        #expect(h.results[id]?.success == .mtu(100))
    }
}
