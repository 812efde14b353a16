import Foundation
import Testing
@testable import Attune

/// State restoration as `willRestoreState` gives Core Bluetooth apps: a connection made
/// with automatic reconnect marks the peripheral, its subscriptions persist, and a new
/// central manager on the same store brings it back with its tree, ready to listen,
/// without the application editing the store and without rediscovery.
@Suite("State restoration")
struct StateRestorationTests {
    static let service = BluetoothUUID(0x180D)
    static let measurement = BluetoothUUID(0x2A37)

    @Test(.timeLimit(.minutes(10)))
    func aNewProcessResumesAndReceivesNotificationsWithoutEditingTheStore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("restore-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let radio = MemoryRadio()
        let manager = try PeripheralManager(transport: .memory(radio), name: "Pulse")
        let published = try await manager.add(ServiceDefinition(Self.service, characteristics: [
            CharacteristicDefinition(Self.measurement, properties: [.notify]),
        ]))
        try await manager.startAdvertising(localName: "Pulse", serviceUUIDs: [Self.service])

        // The first "process": connect with automatic reconnect and subscribe.
        let firstCentral = CentralManager(transport: .memory(radio), store: try FileStore(directory: directory))
        let ad = try await first(try firstCentral.scan(services: [Self.service]), "advertisement") { _ in true }
        let original = firstCentral.peripheral(for: ad)
        try await firstCentral.connect(original, reconnect: .automatic(Backoff(initialDelay: .milliseconds(10),
                                                                          maximumDelay: .milliseconds(50), jitter: 0)))
        let service = try #require(try await original.discoverServices([Self.service]).first)
        let characteristic = try #require(try await original.discoverCharacteristics([Self.measurement], for: service).first)
        try await original.setNotifyValue(true, for: characteristic)

        // The second "process": a new manager on the same store, as after a restart.
        let second = CentralManager(transport: .memory(radio), store: try FileStore(directory: directory))
        let record = try #require(second.store.record(for: original.identifier))
        #expect(record.autoConnect, "connect(reconnect: .automatic) marked it for restoration")
        #expect(record.subscriptions.count == 1, "the subscription persisted")
        let (connected, failed) = await second.resumeAutoConnect(timeout: hangGuard)
        #expect(failed.isEmpty)
        let restored = try #require(connected.first)
        #expect(restored !== original)
        // The tree is there before any discovery call: listen at once.
        let tree = try #require(await restored.services, "a restored peripheral exposes its cached tree")
        let cached = try #require(tree.first { $0.uuid == Self.service }?.characteristics?.first { $0.uuid == Self.measurement })
        let values = await restored.notifications(for: cached)
        #expect(await restored.isNotifying(cached), "subscriptions came back with it")
        // Two centrals subscribed now; the restored one gets the value.
        try await eventually("both centrals subscribed") {
            await manager.subscribedCentrals(for: published.characteristics[0]).count == 2
        }
        #expect(await manager.updateValue([0x06, 99], for: published.characteristics[0]))
        var iterator = values.makeAsyncIterator()
        #expect(try await iterator.next()?.value == [0x06, 99])

        // Cancelling clears the mark: nothing to resume afterwards.
        await second.cancelConnection(restored)
        #expect(second.store.record(for: original.identifier)?.autoConnect == false)
        await firstCentral.cancelConnection(original)
    }
}
