import Foundation
import Testing
@testable import Attune

/// A primary service that includes a secondary service with a 128-bit UUID, as Volume
/// Control includes Volume Offset Control: the secondary service, its include
/// declaration and its attributes reach the application, by discovery and from the
/// cache alike.
@Suite("Secondary services through includes", .timeLimit(.minutes(10)))
struct SecondaryServiceTests {
    static let volumeControl = BluetoothUUID(0x1844)
    static let volumeState = BluetoothUUID(0x2B7D)
    static let offsetService = BluetoothUUID("8E1A0001-3C4D-4B5A-9E0F-112233445566")!
    static let offset = BluetoothUUID("8E1A0002-3C4D-4B5A-9E0F-112233445566")!
    static let userDescription = BluetoothUUID(0x2901)

    /// The including service first, so its include names a service published after it.
    static func services() -> [ServiceDefinition] {
        [
            ServiceDefinition(volumeControl, includes: ["offset"], characteristics: [
                CharacteristicDefinition(volumeState, properties: [.read], value: [0x20]),
            ]),
            ServiceDefinition(offsetService, primary: false, id: "offset", characteristics: [
                CharacteristicDefinition(offset, properties: [.read, .write, .notify], value: [0x10], descriptors: [
                    DescriptorDefinition(userDescription, value: Array("Offset".utf8)),
                ]),
            ]),
        ]
    }

    struct Rig {
        let radio = MemoryRadio()
        let manager: PeripheralManager
        let published: [PublishedService]
        let store = InMemoryStore()

        init() async throws {
            manager = try PeripheralManager(transport: .memory(radio))
            published = try await manager.add(contentsOf: SecondaryServiceTests.services())
            try await manager.startAdvertising(localName: "Volume")
        }

        var secondary: PublishedService { published[1] }

        /// A new central on the shared store, connected; with the lifecycle events up to ready.
        func connect(discoverDatabase: Bool = true) async throws -> (CentralManager, Peripheral, [LifecycleEvent]) {
            let central = CentralManager(transport: .memory(radio), store: store)
            let ad = try await first(try central.scan(), "advertisement") { $0.localName == "Volume" }
            let peripheral = central.peripheral(for: ad)
            let events = peripheral.lifecycleEvents
            try await central.connect(peripheral, discoverDatabase: discoverDatabase)
            return (central, peripheral, try await collect(events, until: .phase(.ready)))
        }
    }

    /// The whole tree, walked as `attune discover` walks it: primaries, then includes
    /// (reaching secondary services), then characteristics and descriptors.
    static func walk(_ peripheral: Peripheral) async throws -> [Service] {
        var services = try await peripheral.discoverServices()
        var next = 0
        while next < services.count {
            for s in try await peripheral.discoverIncludedServices(for: services[next])
            where !services.contains(where: { $0.startHandle == s.startHandle }) {
                services.append(s)
            }
            next += 1
        }
        for s in services {
            for c in try await peripheral.discoverCharacteristics(for: s) { _ = try await peripheral.discoverDescriptors(for: c) }
        }
        return try #require(await peripheral.services)
    }

    @Test(arguments: [true, false])
    func secondaryServiceIsDiscoveredReadWrittenAndSubscribed(discoverDatabase: Bool) async throws {
        let rig = try await Rig()
        let (central, peripheral, _) = try await rig.connect(discoverDatabase: discoverDatabase)
        let primaries = try await peripheral.discoverServices()
        #expect(!primaries.contains { $0.uuid == Self.offsetService }, "a secondary service is no primary service")
        let volume = try #require(primaries.first { $0.uuid == Self.volumeControl })

        let included = try await peripheral.discoverIncludedServices(for: volume)
        #expect(included.map(\.uuid) == [Self.offsetService], "the 128-bit UUID, read from the service declaration")
        #expect(included.first?.isPrimary == false)
        #expect(included.first?.startHandle == rig.secondary.startHandle)
        #expect(included.first?.endHandle == rig.secondary.endHandle)
        let tree = try #require(await peripheral.services)
        #expect(tree.first { $0.uuid == Self.volumeControl }?.includedServices == [
            IncludedService(declarationHandle: AttributeHandle(volume.startHandle.rawValue + 1), uuid: Self.offsetService,
                            startHandle: rig.secondary.startHandle, endHandle: rig.secondary.endHandle),
        ])
        #expect(tree.contains { $0.uuid == Self.offsetService && !$0.isPrimary }, "the secondary service joins the tree")

        let characteristic = try #require(try await peripheral.discoverCharacteristics(for: included[0]).first)
        #expect(characteristic.uuid == Self.offset)
        #expect(characteristic.valueHandle == rig.secondary[Self.offset]?.valueHandle)
        let descriptors = try await peripheral.discoverDescriptors(for: characteristic)
        #expect(descriptors.map(\.uuid) == [BluetoothUUID(0x2902), Self.userDescription])

        #expect(try await peripheral.readValue(for: characteristic) == [0x10])
        try await peripheral.writeValue([0x22], for: characteristic, type: .withResponse)
        #expect(try await peripheral.readValue(for: characteristic) == [0x22])
        #expect(try await peripheral.readValue(for: descriptors[1]) == Array("Offset".utf8))

        let subscribedEvents = rig.manager.events
        let subscribed = Task { try await first(subscribedEvents, "subscription") {
            if case .subscriptionChanged(_, _, let c) = $0 { return c == .notification } else { return false }
        } }
        let values = await peripheral.notifications(for: characteristic)
        try await peripheral.setNotifyValue(true, for: characteristic)
        _ = try await subscribed.value
        let published = try #require(rig.secondary[Self.offset])
        #expect(await rig.manager.updateValue([0x33], for: published))
        var iterator = values.makeAsyncIterator()
        #expect(try await iterator.next()?.value == [0x33])
        await central.cancelConnection(peripheral)
    }

    /// The tree is the same whether each level was asked of the peer (no discovery on
    /// connect), came from the discovery on connect, or came from the cache a later
    /// connection validated by the Database Hash; includes and the secondary service's
    /// attributes too. The stored cache survives encoding and seeds the engine whole.
    @Test func treeIsTheSameFromDiscoveryAndFromTheCache() async throws {
        let rig = try await Rig()
        let (stepwiseCentral, stepwise, _) = try await rig.connect(discoverDatabase: false)
        let asked = try await Self.walk(stepwise)
        await stepwiseCentral.cancelConnection(stepwise)
        #expect(asked.map(\.uuid) == [BluetoothUUID(0x1800), BluetoothUUID(0x1801), Self.volumeControl, Self.offsetService])
        #expect(asked.first { $0.uuid == Self.volumeControl }?.includedServices?.map(\.uuid) == [Self.offsetService])
        #expect(asked.first { $0.uuid == Self.offsetService }?.characteristics?.first?.descriptors?.count == 2)

        let (central, peripheral, first) = try await rig.connect()
        #expect(first.contains(.phase(.discovering)))
        let discovered = try await Self.walk(peripheral)
        #expect(discovered == asked)
        await central.cancelConnection(peripheral)

        let cache = try #require(rig.store.record(for: peripheral.identifier)?.cache)
        #expect(cache.services.first { $0.uuid == Self.volumeControl }?.includedServices?.first?.uuid == Self.offsetService)
        let decoded = try JSONDecoder().decode(GATTCache.self, from: try JSONEncoder().encode(cache))
        #expect(decoded == cache)
        // The engine is seeded from the cache on the next connection: includes go with it.
        #expect(cache.discoveredDatabase.services.first { $0.uuid == Self.volumeControl }?.includes.first?.uuid
                == Self.offsetService)

        let (again, restored, second) = try await rig.connect()
        #expect(second.contains(.cacheValidated(hit: true)))
        #expect(!second.contains(.phase(.discovering)))
        let fromCache = try await Self.walk(restored)
        #expect(fromCache == discovered)
        let value = try #require(fromCache.flatMap { $0.characteristics ?? [] }.first { $0.uuid == Self.offset })
        #expect(try await restored.readValue(for: value) == [0x10])
        await again.cancelConnection(restored)
    }

    /// Common Audio includes Coordinated Set Identification, itself a primary service,
    /// which here includes a secondary service in turn. Asked level by level, with only
    /// Common Audio discovered first, the included primary is still primary and the
    /// nested secondary is reached.
    @Test func includedPrimaryAndNestedSecondary() async throws {
        let commonAudio = BluetoothUUID(0x1853)
        let coordinatedSet = BluetoothUUID(0x1846)
        let inner = BluetoothUUID(0x1845)
        let radio = MemoryRadio()
        let manager = try PeripheralManager(transport: .memory(radio))
        _ = try await manager.add(contentsOf: [
            ServiceDefinition(commonAudio, includes: ["csis"]),
            ServiceDefinition(coordinatedSet, id: "csis", includes: ["inner"], characteristics: [
                CharacteristicDefinition(BluetoothUUID(0x2B84), properties: [.read], value: [2]),
            ]),
            ServiceDefinition(inner, primary: false, id: "inner", characteristics: [
                CharacteristicDefinition(BluetoothUUID(0x2B80), properties: [.read], value: [7]),
            ]),
        ])
        try await manager.startAdvertising(localName: "Set")
        let central = CentralManager(transport: .memory(radio))
        let ad = try await first(try central.scan(), "advertisement") { $0.localName == "Set" }
        let peripheral = central.peripheral(for: ad)
        try await central.connect(peripheral, discoverDatabase: false)

        let cas = try #require(try await peripheral.discoverServices([commonAudio]).first)
        let csis = try #require(try await peripheral.discoverIncludedServices(for: cas).first)
        #expect(csis.uuid == coordinatedSet)
        #expect(csis.isPrimary, "an included primary service stays primary")
        let nested = try #require(try await peripheral.discoverIncludedServices(for: csis).first)
        #expect(nested.uuid == inner)
        #expect(!nested.isPrimary)
        let value = try #require(try await peripheral.discoverCharacteristics(for: nested).first)
        #expect(try await peripheral.readValue(for: value) == [7])
        #expect(await peripheral.services?.map(\.uuid) == [commonAudio, coordinatedSet, inner])
        #expect(await peripheral.services?.first { $0.uuid == coordinatedSet }?.includedServices?.map(\.uuid) == [inner])
        await central.cancelConnection(peripheral)
    }

    /// A store written before include declarations were kept has start handles only.
    /// An empty list still says "includes nothing"; a non-empty one cannot be made whole,
    /// so the cache loses its hash and the next connection discovers the tree again.
    @Test func oldCachesWithIncludedStartHandlesAreRediscovered() throws {
        func cache(_ included: String) -> String {
            """
            {"databaseHash": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16], "services": [
              {"uuid": "1844", "isPrimary": true, "startHandle": 16, "endHandle": 20, "includedServiceHandles": \(included)}
            ]}
            """
        }
        let none = try JSONDecoder().decode(GATTCache.self, from: Data(cache("[]").utf8))
        #expect(none.services[0].includedServices == [])
        #expect(none.databaseHash?.count == 16)
        let some = try JSONDecoder().decode(GATTCache.self, from: Data(cache("[32]").utf8))
        #expect(some.services[0].includedServices == nil)
        #expect(some.databaseHash == nil)
        // A service whose includes were never asked for is no old record: the hash stays.
        let unknown = GATTCache(services: [Service(uuid: BluetoothUUID(0x1844), startHandle: 16, endHandle: 20)],
                                databaseHash: Array(1...16))
        #expect(try JSONDecoder().decode(GATTCache.self, from: try JSONEncoder().encode(unknown)) == unknown)
    }
}
