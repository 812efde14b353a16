import Testing
@testable import Attune

/// Reconnect behaviour of a Peripheral against a PeripheralManager that goes away and
/// comes back.
@Suite("Reconnect over the memory transport", .timeLimit(.minutes(10)))
struct ReconnectTests {
    @Test func attemptsWhileThePeerIsAwayAreEachSurfacedThenItReconnects() async throws {
        let radio = MemoryRadio()
        let manager = try PeripheralManager(transport: .memory(radio), name: "Away")
        try await manager.startAdvertising(localName: "Away")
        let central = CentralManager(transport: .memory(radio))
        let ad = try await first(try central.scan(), "advertisement") { $0.localName == "Away" }
        let peripheral = central.peripheral(for: ad)
        let events = peripheral.lifecycleEvents
        let backoff = Backoff(initialDelay: .milliseconds(10), maximumDelay: .milliseconds(40), jitter: 0)
        try await central.connect(peripheral, timeout: .milliseconds(60), reconnect: .automatic(backoff))

        // The peer stops advertising and the link drops: attempts time out one by one.
        await manager.stopAdvertising()
        radio.dropLinks()
        var reasons: [DisconnectReason] = []
        for try await event in events {
            if case let .disconnected(reason, reconnectAt) = event {
                #expect(reconnectAt != nil, "a reconnect stays pending")
                reasons.append(reason)
                if reasons.count == 3 { break }
            }
        }
        #expect(reasons == [.hci(HCIStatus.connectionTimeout), .connectionTimeout, .connectionTimeout])

        // It comes back: the next attempt connects and the cache is still good.
        try await manager.startAdvertising(localName: "Away")
        let seen = try await collect(events, until: .phase(.ready))
        #expect(seen.contains(.cacheValidated(hit: true)))
        #expect(await peripheral.state == .connected)
        await central.cancelConnection(peripheral)
    }

    @Test func cancellingAPendingConnectFailsItWithCancelled() async throws {
        let radio = MemoryRadio()
        let central = CentralManager(transport: .memory(radio))
        let p = central.peripheral(address: BluetoothAddress(rawValue: 0xC0_00_00_00_99_99), type: .random)
        let events = p.lifecycleEvents
        let attempt = Task { try await central.connect(p) }
        _ = try await collect(events, until: .phase(.connecting))
        await central.cancelConnection(p)
        await #expect(throws: AttuneError.cancelled) { try await attempt.value }
        #expect(await p.state == .disconnected)
    }

    @Test func peripheralSideDisconnectIsReportedWithTheRemoteReason() async throws {
        let radio = MemoryRadio()
        let manager = try PeripheralManager(transport: .memory(radio))
        try await manager.startAdvertising(localName: "Bye")
        let central = CentralManager(transport: .memory(radio))
        let ad = try await first(try central.scan(), "advertisement") { $0.localName == "Bye" }
        let peripheral = central.peripheral(for: ad)
        let events = peripheral.lifecycleEvents
        try await central.connect(peripheral)
        let who = try #require(await manager.connectedCentrals.first)
        await manager.disconnect(who)
        let event = try await first(events, "disconnect") { if case .disconnected = $0 { true } else { false } }
        #expect(event == .disconnected(.hci(HCIStatus.remoteUserTerminatedConnection), reconnectAt: nil))
    }

    @Test func resumedGatewayKeepsTryingDevicesThatAreAway() async throws {
        let radio = MemoryRadio()
        let manager = try PeripheralManager(transport: .memory(radio), name: "Later")
        // Learn the peripheral's address once, as an earlier run of the gateway would have.
        try await manager.startAdvertising(localName: "Later")
        let scout = CentralManager(transport: .memory(radio))
        let ad = try await first(try scout.scan(), "advertisement") { $0.localName == "Later" }
        await manager.stopAdvertising()

        var record = PeripheralRecord(address: ad.address, addressType: .random, name: "Later")
        record.autoConnect = true
        let gateway = CentralManager(transport: .memory(radio), store: InMemoryStore([record]))
        let peripheral = try #require(gateway.restoredPeripherals.first)
        let events = peripheral.lifecycleEvents
        let backoff = Backoff(initialDelay: .milliseconds(10), maximumDelay: .milliseconds(30), jitter: 0)
        let result = await gateway.resumeAutoConnect(timeout: .milliseconds(50), backoff: backoff)
        #expect(result.connected.isEmpty)
        #expect(result.failed[record.identifier] == .connectionTimeout)

        try await manager.startAdvertising(localName: "Later")
        _ = try await collect(events, until: .phase(.ready))
        #expect(await peripheral.state == .connected)
        await gateway.cancelConnection(peripheral)
    }
}
