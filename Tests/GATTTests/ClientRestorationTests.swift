import ATT
import GATTTestSupport
import Testing
@testable import GATT

/// The engine owns a link's subscriptions: it restores those of the last link at
/// start-up, follows them when the database moved, and keeps them when the link drops.
@Suite("Client subscription restoration")
struct ClientRestorationTests {
    static let hash = Array(UInt8(1)...16)
    static let heartRate = BluetoothUUID(0x180D)
    static let measurement = BluetoothUUID(0x2A37)
    static let battery = BluetoothUUID(0x180F)
    static let level = BluetoothUUID(0x2A19)

    /// GATT service (Database Hash value at 0x0003), Heart Rate Measurement (value 0x0012,
    /// CCCD 0x0013) and Battery Level (value 0x0022, CCCD 0x0023).
    static let cached = DiscoveredDatabase(services: [
        DiscoveredService(uuid: 0x1801, handleRange: AttributeHandleRange(start: 1, end: 3), characteristics: [
            DiscoveredCharacteristic(declarationHandle: 2, properties: [.read], valueHandle: 3, uuid: 0x2B2A, endHandle: 3),
        ]),
        DiscoveredService(uuid: heartRate, handleRange: AttributeHandleRange(start: 0x10, end: 0x13), characteristics: [
            DiscoveredCharacteristic(declarationHandle: 0x11, properties: [.notify], valueHandle: 0x12, uuid: measurement,
                                     endHandle: 0x13, descriptors: [DiscoveredDescriptor(handle: 0x13, uuid: 0x2902)]),
        ]),
        DiscoveredService(uuid: battery, handleRange: AttributeHandleRange(start: 0x20, end: 0x23), characteristics: [
            DiscoveredCharacteristic(declarationHandle: 0x21, properties: [.read, .indicate], valueHandle: 0x22, uuid: level,
                                     endHandle: 0x23, descriptors: [DiscoveredDescriptor(handle: 0x23, uuid: 0x2902)]),
        ]),
    ], databaseHash: hash)

    static let heartRateSubscription = Subscription(serviceUUID: heartRate, characteristicUUID: measurement,
                                                    valueHandle: 0x12, configurationHandle: 0x13, kind: .notify)
    static let batterySubscription = Subscription(serviceUUID: battery, characteristicUUID: level,
                                                  valueHandle: 0x22, configurationHandle: 0x23, kind: .indicate)

    /// A client seeded with the cache, started with `restoring`, that has exchanged MTU 23.
    static func started(restoring: [Subscription]) -> ClientHarness {
        var h = ClientHarness(connection: GATTLink(
            configuration: GATTClientConfiguration(discoversOnStart: true), database: cached))
        h.take(h.connection.start(restoring: restoring, at: h.now))
        #expect(h.connection.client.startupPhase == .exchangingMTU)
        #expect(h.nextSent() == "020502")
        h.receive([0x03, 23, 0])
        #expect(h.connection.client.startupPhase == .validatingCache)
        return h
    }

    @Test func aCacheHitRestoresEverySubscriptionBeforeReady() {
        var h = Self.started(restoring: [Self.heartRateSubscription, Self.batterySubscription])
        #expect(h.nextSent() == "080100ffff2a2b")
        h.receive([0x09, 18, 0x03, 0x00] + Self.hash)
        #expect(h.connection.client.cacheHit == true)
        #expect(h.connection.client.startupPhase == .restoringSubscriptions)
        // Heart Rate notifications (0x0001), Battery indications (0x0002), one at a time.
        #expect(h.nextSent() == "1213000100")
        h.receive(hex: "13")
        #expect(h.nextSent() == "1223000200")
        #expect(h.events == [.subscriptionRestored(Self.heartRateSubscription)], "not ready before the last write")
        h.receive(hex: "13")
        #expect(h.events == [.subscriptionRestored(Self.heartRateSubscription),
                             .subscriptionRestored(Self.batterySubscription), .ready(Self.cached)])
        #expect(h.connection.client.startupPhase == .ready)
        #expect(h.connection.client.subscriptions == [Self.heartRateSubscription, Self.batterySubscription])
        #expect(h.connection.client.subscriberCount(valueHandle: 0x12) == 1)
    }

    @Test func aRefusedRestoreEndsThatSubscriptionOnly() {
        var h = Self.started(restoring: [Self.heartRateSubscription, Self.batterySubscription])
        _ = h.nextSent()
        h.receive([0x09, 18, 0x03, 0x00] + Self.hash)
        #expect(h.nextSent() == "1213000100")
        h.receive(hex: "0112130003")                   // Write Not Permitted
        #expect(h.nextSent() == "1223000200")
        h.receive(hex: "13")
        #expect(h.events == [
            .subscriptionEnded(Self.heartRateSubscription, .att(.writeNotPermitted, handle: 0x13, request: .writeRequest)),
            .subscriptionsChanged([Self.batterySubscription]),
            .subscriptionRestored(Self.batterySubscription), .ready(Self.cached),
        ])
        #expect(h.connection.client.subscriptions == [Self.batterySubscription])
    }

    @Test func aLinkThatDropsMidRestoreKeepsEverySubscriptionForTheNext() {
        var h = Self.started(restoring: [Self.heartRateSubscription, Self.batterySubscription])
        _ = h.nextSent()
        h.receive([0x09, 18, 0x03, 0x00] + Self.hash)
        #expect(h.nextSent() == "1213000100")
        h.take(h.connection.close(because: "link lost", at: h.now))
        #expect(!h.events.contains { if case .subscriptionEnded = $0 { true } else { false } })
        #expect(Set(h.connection.client.subscriptions) == [Self.heartRateSubscription, Self.batterySubscription])
    }

    @Test func aLinkThatDropsBeforeDiscoveryKeepsThemToo() {
        var h = Self.started(restoring: [Self.heartRateSubscription])
        h.take(h.connection.close(because: "link lost", at: h.now))
        #expect(h.connection.client.subscriptions == [Self.heartRateSubscription])
        #expect(h.connection.client.isSubscribed(valueHandle: 0x12))
    }

    @Test func aFailedStartupDiscoveryEndsWhatItCouldNotFindAgain() {
        var h = Self.started(restoring: [Self.heartRateSubscription])
        #expect(h.nextSent() == "080100ffff2a2b")
        // The server refuses the hash read, then the discovery that follows.
        h.receive(hex: "01080100000a")
        while !h.sent.isEmpty {
            let request = h.sent.removeFirst()
            h.receive([0x01, request[0], 0x01, 0x00, 0x0E])   // Unlikely Error
            if h.connection.client.startupPhase == .failed { break }
        }
        #expect(h.connection.client.startupPhase == .failed)
        guard case .subscriptionEnded(Self.heartRateSubscription, _)? = h.events.first,
              case .startupFailed? = h.events.last else { Issue.record("\(h.events)"); return }
        #expect(h.connection.client.subscriptions.isEmpty, "never written blind to handles nobody confirmed")
    }

    // MARK: Against our server

    static func server(shifted: Bool, withBattery: Bool) -> GATTServer {
        var services: [ServiceDefinition] = [.genericAttribute()]
        if shifted {
            services.append(ServiceDefinition(BluetoothUUID(0xFFF0), characteristics: [
                CharacteristicDefinition(BluetoothUUID(0xFFF1), properties: [.read], value: [1]),
                CharacteristicDefinition(BluetoothUUID(0xFFF2), properties: [.read], value: [2]),
            ]))
        }
        services.append(ServiceDefinition(heartRate, characteristics: [
            CharacteristicDefinition(measurement, properties: [.notify], value: [0, 60]),
        ]))
        if withBattery {
            services.append(ServiceDefinition(battery, characteristics: [
                CharacteristicDefinition(level, properties: [.read, .indicate], value: [99]),
            ]))
        }
        return GATTServer(database: try! AttributeDatabase(services: services))
    }

    @Test func aChangedDatabaseMovesSubscriptionsAndEndsThoseWhoseCharacteristicIsGone() throws {
        // First link: discover and subscribe to both.
        var first = GATTMemoryPipe(server: Self.server(shifted: false, withBattery: true),
                                   clientConfiguration: GATTClientConfiguration(discoversOnStart: true))
        first.start()
        let db = first.client.client.database
        let hr = try #require(db.characteristic(uuid: Self.measurement))
        let bl = try #require(db.characteristic(uuid: Self.level))
        #expect(first.perform(.subscribe(valueHandle: hr.valueHandle)).success == .done)
        #expect(first.perform(.subscribe(valueHandle: bl.valueHandle)).success == .done)
        let kept = first.client.client.subscriptions
        #expect(kept.map(\.characteristicUUID) == [Self.measurement, Self.level])
        #expect(first.takeClientEvents().contains(.subscriptionsChanged(kept)))

        // Next link: the server moved Heart Rate and dropped Battery; its hash differs.
        var next = GATTMemoryPipe(server: Self.server(shifted: true, withBattery: false),
                                  clientConfiguration: GATTClientConfiguration(discoversOnStart: true), clientDatabase: db)
        next.start(restoring: kept)
        let events = next.takeClientEvents()
        let moved = try #require(next.client.client.subscriptions.first)
        #expect(next.client.client.subscriptions.count == 1)
        #expect(moved.characteristicUUID == Self.measurement && moved.valueHandle != hr.valueHandle)
        #expect(next.client.client.cacheHit == false)
        #expect(events.contains(.subscriptionMoved(moved, from: hr.valueHandle)))
        #expect(events.contains(.subscriptionEnded(kept[1], .attributeNotFound("characteristic 2A19 of service 180F"))))
        #expect(events.contains(.subscriptionsChanged([moved])))
        #expect(events.contains(.subscriptionRestored(moved)))
        guard case .ready? = events.last else { Issue.record("\(events)"); return }
        // The server saw the CCCD written at the new handle, and notifies there.
        #expect(next.server.clientConfiguration(of: next.connection, characteristic: moved.valueHandle) == .notification)
        _ = try next.withServer { server, _, _, out in
            try server.notify([0, 72], characteristic: moved.valueHandle, into: &out)
        }
        #expect(next.takeClientEvents().contains(.notification(moved.valueHandle, [0, 72])))
    }
}
