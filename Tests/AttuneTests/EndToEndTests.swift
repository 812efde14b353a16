import Foundation
import Testing
@testable import Attune

/// A central manager and a peripheral manager in one process over a MemoryRadio: every
/// PDU runs through the real ATT bearers and the GATT client and server engines.
@Suite("Central ↔ peripheral over the memory transport", .timeLimit(.minutes(10)))
struct EndToEndTests {
    static let heartRate = BluetoothUUID(0x180D)
    static let measurement = BluetoothUUID(0x2A37)
    static let bodyLocation = BluetoothUUID(0x2A38)
    static let controlPoint = BluetoothUUID(0x2A39)
    static let stream = BluetoothUUID(high: 0x6E40_0002_B5A3_F393, low: 0xE0A9_E50E_24DC_CA9E)
    static let alarm = BluetoothUUID(0x2A06)

    static func heartRateService() -> ServiceDefinition {
        ServiceDefinition(heartRate, characteristics: [
            CharacteristicDefinition(measurement, properties: [.notify]),
            CharacteristicDefinition(bodyLocation, properties: [.read], value: [0x01]),
            CharacteristicDefinition(controlPoint, properties: [.write], dynamic: true),
            CharacteristicDefinition(stream, properties: [.writeWithoutResponse, .read], value: []),
            CharacteristicDefinition(alarm, properties: [.indicate, .read], value: [0]),
        ])
    }

    struct Rig {
        let radio = MemoryRadio()
        let peripheralManager: PeripheralManager
        let published: PublishedService
        let central: CentralManager

        init(store: any Store = InMemoryStore()) async throws {
            peripheralManager = try PeripheralManager(transport: .memory(radio), name: "Pulse")
            published = try await peripheralManager.add(EndToEndTests.heartRateService())
            try await peripheralManager.startAdvertising(localName: "Pulse", serviceUUIDs: [EndToEndTests.heartRate],
                                                         manufacturerData: [0xFFFF: [1, 2]])
            central = CentralManager(transport: .memory(radio), store: store)
        }

        func discovered() async throws -> Peripheral {
            let ad = try await first(try central.scan(services: [EndToEndTests.heartRate]), "advertisement") { _ in true }
            #expect(ad.localName == "Pulse")
            #expect(ad.manufacturerData[0xFFFF] == [1, 2])
            return central.peripheral(for: ad)
        }
    }

    @Test func scanConnectDiscoverReadWrite() async throws {
        let rig = try await Rig()
        #expect(rig.central.state == .poweredOn)
        let peripheral = try await rig.discovered()
        try await rig.central.connect(peripheral)
        #expect(await peripheral.state == .connected)
        #expect(await peripheral.phase == .ready)
        #expect(await peripheral.mtu == 512, "517 offered, the server takes 512")

        let services = try await peripheral.discoverServices([Self.heartRate])
        #expect(services.map(\.uuid) == [Self.heartRate])
        #expect(await peripheral.services?.first?.characteristics == nil, "characteristics come with their own call")
        let characteristics = try await peripheral.discoverCharacteristics(for: services[0])
        #expect(characteristics.map(\.uuid) == [Self.measurement, Self.bodyLocation, Self.controlPoint, Self.stream, Self.alarm])
        let body = try #require(characteristics.first { $0.uuid == Self.bodyLocation })
        #expect(try await peripheral.readValue(for: body) == [0x01])

        // A write of a dynamic characteristic goes to the application, which answers.
        let control = try #require(characteristics.first { $0.uuid == Self.controlPoint })
        let answerer = Task {
            var answered = 0
            for await request in rig.peripheralManager.requests {
                #expect(request.handle == control.valueHandle)
                let ok = request.value == [0x01]
                await rig.peripheralManager.respond(to: request, withResult: ok ? .success([]) : .failure(ATTErrorCode(0x80)))
                answered += 1
                if answered == 2 { return }
            }
        }
        try await peripheral.writeValue([0x01], for: control, type: .withResponse)
        await #expect(throws: AttuneError.att(ATTErrorCode(0x80))) {
            try await peripheral.writeValue([0x02], for: control, type: .withResponse)
        }
        await answerer.value

        // Writes without response, flow-controlled, and a long value.
        let stream = try #require(characteristics.first { $0.uuid == Self.stream })
        #expect(await peripheral.maximumWriteValueLength(for: .withoutResponse) == 509)
        let stored = rig.peripheralManager.events
        let streamHandle = rig.published[Self.stream]!.valueHandle
        for i in 0..<20 { try await peripheral.writeValue([UInt8(i)], for: stream, type: .withoutResponse) }
        await #expect(throws: AttuneError.invalidValueLength(510, maximum: 509)) {
            try await peripheral.writeValue(Array(repeating: 0, count: 510), for: stream, type: .withoutResponse)
        }
        _ = try await first(stored, "last write stored") {
            if case .valueWritten(_, streamHandle, [19]) = $0 { true } else { false }
        }
        #expect(await rig.peripheralManager.value(of: rig.published[Self.stream]!) == [19])
        await #expect(throws: AttuneError.self) {
            try await peripheral.writeValue([1], for: body, type: .withResponse)
        }

        let descriptors = try await peripheral.discoverDescriptors(for: characteristics[0])
        #expect(descriptors.map(\.uuid) == [GATTAttributeType.clientCharacteristicConfiguration])
        #expect(try await peripheral.readValue(for: descriptors[0]) == [0, 0])
    }

    @Test func notificationsAndIndicationsReachSubscribers() async throws {
        let rig = try await Rig()
        let peripheral = try await rig.discovered()
        try await rig.central.connect(peripheral)
        let service = try #require(try await peripheral.discoverServices([Self.heartRate]).first)
        let characteristics = try await peripheral.discoverCharacteristics(for: service)
        let measurement = try #require(characteristics.first { $0.uuid == Self.measurement })
        let alarm = try #require(characteristics.first { $0.uuid == Self.alarm })

        let subscribedEvents = rig.peripheralManager.events
        let subscribed = Task { try await first(subscribedEvents, "subscription") {
            if case .subscriptionChanged(_, _, let c) = $0 { return c == .notification } else { return false }
        } }
        let values = await peripheral.notifications(for: measurement)
        try await peripheral.setNotifyValue(true, for: measurement)
        #expect(await peripheral.isNotifying(measurement))
        _ = try await subscribed.value
        let publishedMeasurement = try #require(rig.published[Self.measurement])
        #expect(await rig.peripheralManager.subscribedCentrals(for: publishedMeasurement).count == 1)

        #expect(await rig.peripheralManager.updateValue([0x06, 72], for: publishedMeasurement))
        #expect(await rig.peripheralManager.updateValue([0x06, 73], for: publishedMeasurement))
        var iterator = values.makeAsyncIterator()
        #expect(try await iterator.next()?.value == [0x06, 72])
        #expect(try await iterator.next()?.value == [0x06, 73])

        let indications = await peripheral.notifications(for: alarm)
        let alarmSubscribed = rig.peripheralManager.events
        let confirmedEvents = rig.peripheralManager.events
        try await peripheral.setNotifyValue(true, for: alarm)
        // updateValue indicates only to centrals the server knows are subscribed.
        _ = try await first(alarmSubscribed, "indication subscription") {
            if case .subscriptionChanged(_, _, let c) = $0 { c == .indication } else { false }
        }
        let confirmed = Task { try await first(confirmedEvents, "confirmation") {
            if case .indicationCompleted(_, let ok) = $0 { return ok } else { return false }
        } }
        #expect(await rig.peripheralManager.updateValue([0xAA], for: rig.published[Self.alarm]!))
        var alarms = indications.makeAsyncIterator()
        #expect(try await alarms.next()?.value == [0xAA])
        _ = try await confirmed.value

        // Turning notifications off ends the stream normally.
        try await peripheral.setNotifyValue(false, for: measurement)
        #expect(try await iterator.next() == nil)
        #expect(await rig.peripheralManager.subscribedCentrals(for: publishedMeasurement).isEmpty)
    }

    @Test func reconnectAfterADropResubscribesWithACacheHit() async throws {
        let store = InMemoryStore()
        let rig = try await Rig(store: store)
        let peripheral = try await rig.discovered()
        let events = peripheral.lifecycleEvents
        let fast = Backoff(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200), jitter: 0)
        try await rig.central.connect(peripheral, reconnect: .automatic(fast))
        let service = try #require(try await peripheral.discoverServices([Self.heartRate]).first)
        let measurement = try #require(try await peripheral.discoverCharacteristics([Self.measurement], for: service).first)
        let values = await peripheral.notifications(for: measurement)
        try await peripheral.setNotifyValue(true, for: measurement)
        #expect(store.record(for: peripheral.identifier)?.subscriptions.count == 1)
        #expect(store.record(for: peripheral.identifier)?.cache?.databaseHash?.count == 16)

        let measurementHandle = rig.published[Self.measurement]!.valueHandle
        let serverEvents = rig.peripheralManager.events
        rig.radio.dropLinks()
        let sawDrop = try await first(events, "disconnect") {
            if case .disconnected(.hci(HCIStatus.connectionTimeout), let at) = $0 { return at != nil } else { return false }
        }
        _ = sawDrop
        let seen = try await collect(events, until: .phase(.ready))
        #expect(seen.contains(.cacheValidated(hit: true)))
        #expect(!seen.contains(.phase(.discovering)))
        #expect(seen.contains { if case .subscriptionRestored = $0 { true } else { false } })

        // The CCCD was written again: values flow on the same stream.
        _ = try await first(serverEvents, "subscription restored on the server") {
            if case .subscriptionChanged(_, measurementHandle, .notification) = $0 { true } else { false }
        }
        #expect(await rig.peripheralManager.updateValue([0x06, 90], for: rig.published[Self.measurement]!))
        var iterator = values.makeAsyncIterator()
        #expect(try await iterator.next()?.value == [0x06, 90])

        // Cancelling ends the subscription with its reason instead of leaving it hanging.
        await rig.central.cancelConnection(peripheral)
        await #expect(throws: AttuneError.cancelled) { _ = try await iterator.next() }
        #expect(await peripheral.state == .disconnected)
    }

    @Test func changedDatabaseIsRediscoveredOnReconnect() async throws {
        let rig = try await Rig()
        let peripheral = try await rig.discovered()
        let fast = Backoff(initialDelay: .milliseconds(20), jitter: 0)
        try await rig.central.connect(peripheral, reconnect: .automatic(fast))
        let events = peripheral.lifecycleEvents
        rig.radio.dropLinks()
        // While the link is down the peripheral gains a service: the hash changes.
        try await rig.peripheralManager.add(ServiceDefinition(BluetoothUUID(0x180F), characteristics: [
            CharacteristicDefinition(BluetoothUUID(0x2A19), properties: [.read], value: [88]),
        ]))
        let seen = try await collect(events, until: .phase(.ready))
        // One request validated and, on the changed hash, rediscovered: the phase stays
        // validatingCache, and the answer says the cache missed.
        #expect(seen.contains(.cacheValidated(hit: false)))
        #expect(await peripheral.knownTree?.contains { $0.uuid == BluetoothUUID(0x180F) } == true,
                "the new service is in the rediscovered tree")
        let battery = try #require(try await peripheral.discoverServices([BluetoothUUID(0x180F)]).first)
        let level = try #require(try await peripheral.discoverCharacteristics(for: battery).first)
        #expect(try await peripheral.readValue(for: level) == [88])
        await rig.central.cancelConnection(peripheral)
    }

    @Test func connectTimesOutWhenNobodyAdvertises() async throws {
        let radio = MemoryRadio()
        let central = CentralManager(transport: .memory(radio))
        let p = central.peripheral(address: BluetoothAddress("C0:FF:EE:00:00:01")!, type: .random)
        await #expect(throws: AttuneError.connectionTimeout) {
            try await central.connect(p, timeout: .milliseconds(100))
        }
        #expect(await p.state == .disconnected)
    }

    @Test func poweredOffRadioIsReportedWithItsCause() async throws {
        let radio = MemoryRadio()
        let central = CentralManager(transport: .memory(radio))
        let states = central.stateUpdates
        radio.setPowered(false)
        _ = try await first(states, "powered off") { $0 == .poweredOff }
        #expect(central.status.cause == .adapterDown("memory radio"))
        #expect(throws: AttuneError.unavailable(.adapterDown("memory radio"))) { _ = try central.scan() }
        radio.setPowered(true)
        #expect(central.state == .poweredOn)
    }

    @Test func unreachableH4ControllerSaysWhy() {
        // Nothing listens on the discard port here: the stream cannot be opened.
        let central = CentralManager(transport: .h4(.tcp(host: "127.0.0.1", port: 9)))
        #expect(central.state == .unsupported)
        guard case .transportUnreachable? = central.status.cause else {
            Issue.record("expected an unreachable controller, got \(central.status)")
            return
        }
    }

    /// The kernel transport reports what the kernel says: on a kernel without
    /// Bluetooth, the missing AF_BLUETOOTH; a missing adapter by name otherwise.
    @Test func kernelTransportStateComesFromTheKernel() {
        let central = CentralManager(transport: .kernel("hci77"))
        #expect(central.state != .poweredOn)
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue), 1)
        if fd < 0 {
            #expect(central.status.cause == .noBluetoothSupport)
            #expect(throws: AttuneError.unavailable(.noBluetoothSupport)) { _ = try central.scan() }
        } else {
            close(fd)
            #expect(central.status.cause == .noAdapter("hci77"))
        }
    }

    @Test func restartRestoresPeripheralsFromTheStore() async throws {
        let dir = NSTemporaryDirectory() + "attune-e2e-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rig = try await Rig(store: try FileStore(directory: dir))
        let peripheral = try await rig.discovered()
        try await rig.central.connect(peripheral)
        let service = try #require(try await peripheral.discoverServices([Self.heartRate]).first)
        let measurement = try #require(try await peripheral.discoverCharacteristics([Self.measurement], for: service).first)
        try await peripheral.setNotifyValue(true, for: measurement)
        let ending = peripheral.lifecycleEvents
        await rig.central.cancelConnection(peripheral)
        _ = try await collect(ending, until: .phase(.disconnected))
        #expect(await peripheral.state == .disconnected)
        // Cancelling ended the subscription; subscribe again in the record as a gateway would.
        try rig.central.store.update(address: peripheral.address, type: peripheral.addressType) {
            $0.subscriptions = [Subscription(serviceUUID: Self.heartRate, characteristicUUID: Self.measurement,
                                             valueHandle: measurement.valueHandle,
                                             configurationHandle: measurement.valueHandle.successor!,
                                             kind: .notify)]
            $0.autoConnect = true
        }

        // A new process: a new manager on the same store.
        let restarted = CentralManager(transport: .memory(rig.radio), store: try FileStore(directory: dir))
        let restored = restarted.restoredPeripherals
        #expect(restored.map(\.identifier) == [peripheral.identifier])
        #expect(await restored[0].name == "Pulse")
        let events = restored[0].lifecycleEvents
        let serverEvents = rig.peripheralManager.events
        let result = await restarted.resumeAutoConnect()
        #expect(result.connected.count == 1 && result.failed.isEmpty)
        let seen = try await collect(events, until: .phase(.ready))
            .filter { if case .phase = $0 { false } else { true } }
        _ = seen
        #expect(await restored[0].isNotifying(measurement))
        let measurementHandle = rig.published[Self.measurement]!.valueHandle
        _ = try await first(serverEvents, "subscription restored on the server") {
            if case .subscriptionChanged(_, measurementHandle, .notification) = $0 { true } else { false }
        }
        #expect(await rig.peripheralManager.subscribedCentrals(for: rig.published[Self.measurement]!).count == 1)
        await restarted.cancelConnection(restored[0])
    }
}

/// Events up to and including `last`.
func collect(_ events: AsyncStream<LifecycleEvent>, until last: LifecycleEvent) async throws -> [LifecycleEvent] {
    try await within("lifecycle until \(last)") {
        var seen: [LifecycleEvent] = []
        for await event in events {
            seen.append(event)
            if event == last { return seen }
        }
        return seen
    }
}
