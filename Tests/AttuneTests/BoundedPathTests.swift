import Testing
@testable import Attune

/// One bounded path per link: a slow consumer holds the link up instead of losing
/// values; a consumer that stalls past its limit is told how much it lost; a flood of
/// requests the application cannot take is answered at once, never left to time out.
@Suite("Bounded path from link to consumer")
struct BoundedPathTests {
    static let service = BluetoothUUID(0x180D)
    static let measurement = BluetoothUUID(0x2A37)
    static let secret = BluetoothUUID(0x2A38)
    static let control = BluetoothUUID(0x2A39)

    struct Rig {
        let radio = MemoryRadio()
        let manager: PeripheralManager
        let published: PublishedService
        let central: CentralManager
        let peripheral: Peripheral
        let characteristics: [Characteristic]

        init() async throws {
            manager = try PeripheralManager(transport: .memory(radio), name: "Flood")
            published = try await manager.add(ServiceDefinition(BoundedPathTests.service, characteristics: [
                CharacteristicDefinition(BoundedPathTests.measurement, properties: [.notify]),
                CharacteristicDefinition(BoundedPathTests.secret, properties: [.read],
                                         permissions: AttributePermissions(read: .encrypted, write: .denied), value: [7]),
                CharacteristicDefinition(BoundedPathTests.control, properties: [.read, .writeWithoutResponse], dynamic: true),
            ]))
            try await manager.startAdvertising(localName: "Flood", serviceUUIDs: [BoundedPathTests.service])
            central = CentralManager(transport: .memory(radio))
            let ad = try await first(try central.scan(services: [BoundedPathTests.service]), "advertisement") { _ in true }
            peripheral = central.peripheral(for: ad)
            try await central.connect(peripheral, preferredMTU: 23)
            let services = try await peripheral.discoverServices([BoundedPathTests.service])
            characteristics = try await peripheral.discoverCharacteristics(for: services[0])
        }

        subscript(_ uuid: BluetoothUUID) -> Characteristic { characteristics.first { $0.uuid == uuid }! }
        var measurement: PublishedCharacteristic { published.characteristics.first { $0.uuid == BoundedPathTests.measurement }! }

        /// Sends `count` values as an application must: wait whenever the link is full.
        func produce(_ count: Int) async {
            for i in 0..<count {
                let value = [UInt8(truncatingIfNeeded: i), UInt8(truncatingIfNeeded: i >> 8)]
                while !(await manager.updateValue(value, for: measurement)) { await manager.readyToUpdateSubscribers() }
            }
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func aConsumerThatFallsBehindHoldsTheLinkAndLosesNothing() async throws {
        let rig = try await Rig()
        await rig.peripheral.setNotificationStallLimit(.seconds(60))
        let values = await rig.peripheral.notifications(for: rig[Self.measurement])
        try await rig.peripheral.setNotifyValue(true, for: rig[Self.measurement])
        // Far more than any buffer on the path holds: the old path kept the newest 4096.
        let count = 10_000
        let producer = Task { await rig.produce(count) }
        // The consumer has not read yet, so the link must be held up.
        try await eventually("the link held up") { rig.peripheral.statistics.backPressurePauses > 0 }
        var received = 0
        for try await notification in values {
            #expect(notification.lostBefore == 0)
            #expect(notification.value == [UInt8(truncatingIfNeeded: received), UInt8(truncatingIfNeeded: received >> 8)],
                    "in order, none missing")
            received += 1
            if received == count { break }
        }
        await producer.value
        #expect(received == count)
        #expect(rig.peripheral.statistics.notificationsLost == 0)
    }

    @Test(.timeLimit(.minutes(10)))
    func aConsumerThatStallsIsToldHowManyValuesItLost() async throws {
        let rig = try await Rig()
        await rig.peripheral.setNotificationStallLimit(.milliseconds(20))
        let values = await rig.peripheral.notifications(for: rig[Self.measurement])
        try await rig.peripheral.setNotifyValue(true, for: rig[Self.measurement])
        let count = 3_000
        // Nobody reads: after the stall limit the link moves on, dropping and counting.
        await rig.produce(count)
        try await eventually("every value reached the peripheral") {
            rig.peripheral.statistics.notificationsReceived == count
        }
        // A round trip (answered with an error) proves the link is not stuck behind the
        // quiet consumer.
        await #expect(throws: AttuneError.self) { _ = try await rig.peripheral.readValue(for: rig[Self.secret]) }
        var delivered = 0, reported = 0
        var iterator = values.makeAsyncIterator()
        while delivered + reported < count, let notification = try await iterator.next() {
            delivered += 1
            reported += notification.lostBefore
        }
        #expect(reported > 0, "the stall dropped values")
        #expect(delivered + reported == count, "every value delivered or reported lost")
        #expect(rig.peripheral.statistics.notificationsLost == reported)
    }

    @Test(.timeLimit(.minutes(10)))
    func requestsTheApplicationCannotTakeAreAnsweredAtOnce() async throws {
        let rig = try await Rig()
        // Nobody reads `requests`: write commands fill it, then a read must still be
        // answered at once instead of waiting out the ATT timeout.
        let refusedEvents = rig.manager.events
        let refused = Task { try await first(refusedEvents, "refusal") {
            if case .requestRefused(let r) = $0 { return r.kind == .read } else { return false }
        } }
        let extra = 5
        for i in 0..<(PeripheralManager.requestQueueCapacity + extra) {
            await rig.peripheral.readyToSendWriteWithoutResponse()
            try await rig.peripheral.writeValue([UInt8(truncatingIfNeeded: i)], for: rig[Self.control], type: .withoutResponse)
        }
        await #expect(throws: AttuneError.att(.insufficientResources)) {
            _ = try await rig.peripheral.readValue(for: rig[Self.control])
        }
        _ = try await refused.value
        #expect(await rig.manager.refusedRequests == extra + 1)
    }

    @Test(.timeLimit(.minutes(10)))
    func securityThatCannotBeRaisedSaysWhatIsMissing() async throws {
        let rig = try await Rig()
        do {
            _ = try await rig.peripheral.readValue(for: rig[Self.secret])
            Issue.record("an encrypted value was read over an unencrypted link")
        } catch .securityUnavailable(let why) {
            #expect(why.contains("Insufficient Encryption"), "names the peer's answer: \(why)")
            #expect(why.contains("no Security Manager"), "names the missing piece: \(why)")
            #expect(why.contains("the attribute requires an encrypted link"), "names what the attribute needs: \(why)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}

@Suite("Discovery deadline through the API")
struct DiscoveryDeadlineTests {
    @Test(.timeLimit(.minutes(10)))
    func connectGoesOnWithoutACacheWhenDiscoveryOutlastsItsDeadline() async throws {
        let radio = MemoryRadio()
        let manager = try PeripheralManager(transport: .memory(radio), name: "Big")
        // Hundreds of round trips: far longer than a deadline of one nanosecond.
        _ = try await manager.add(contentsOf: (0..<300).map { i in
            ServiceDefinition(BluetoothUUID(UInt16(0xA000 + i)), characteristics: [
                CharacteristicDefinition(BluetoothUUID(0x2A37), properties: [.read], value: [UInt8(truncatingIfNeeded: i)]),
            ])
        })
        try await manager.startAdvertising(localName: "Big", serviceUUIDs: [BluetoothUUID(0xA000)])
        let central = CentralManager(transport: .memory(radio))
        let ad = try await first(try central.scan(services: [BluetoothUUID(0xA000)]), "advertisement") { _ in true }
        let peripheral = central.peripheral(for: ad)
        try await central.connect(peripheral, discoveryTimeout: .nanoseconds(1))
        #expect(await peripheral.phase == .ready, "the connection goes on")
        #expect(await peripheral.knownTree == nil, "no partial database was kept as the cache")
        // The link still works: discovery by the application asks the peer.
        let services = try await peripheral.discoverServices([BluetoothUUID(0xA000)])
        #expect(services.count == 1)

        // Without a deadline the same database is discovered whole.
        let patient = CentralManager(transport: .memory(radio))
        let other = patient.peripheral(for: ad)
        try await patient.connect(other, discoveryTimeout: nil)
        #expect(await other.knownTree?.count == 302, "GAP, GATT and 300 services")
    }
}
