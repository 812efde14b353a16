import Attune
import CAllocCounter
import Foundation

/// The public API as a user drives it: `PeripheralManager.updateValue` on one side, a
/// consumer of `Peripheral.notifications(for:)` on the other, over the memory transport.
/// These are the `api.*` figures of the connection-engine issue.
enum APIBenchmarks {
    static let service = BluetoothUUID(0x180D)
    static let measurement = BluetoothUUID(0x2A37)

    /// A peripheral manager with one notifying characteristic, and a central connected
    /// to it and subscribed.
    struct Rig {
        let radio = MemoryRadio()
        let manager: PeripheralManager
        let published: PublishedCharacteristic
        let central: CentralManager
        let peripheral: Peripheral
        let characteristic: Characteristic

        init() async throws {
            manager = try PeripheralManager(transport: .memory(radio), name: "Bench")
            let service = try await manager.add(ServiceDefinition(APIBenchmarks.service, characteristics: [
                CharacteristicDefinition(APIBenchmarks.measurement, properties: [.notify]),
            ]))
            published = service.characteristics[0]
            try await manager.startAdvertising(localName: "Bench", serviceUUIDs: [APIBenchmarks.service])
            central = CentralManager(transport: .memory(radio))
            var found: Advertisement?
            for await ad in try central.scan(services: [APIBenchmarks.service]) {
                found = ad
                break
            }
            peripheral = central.peripheral(for: found!)
            try await central.connect(peripheral, preferredMTU: 23)
            let services = try await peripheral.discoverServices([APIBenchmarks.service])
            characteristic = try await peripheral.discoverCharacteristics([APIBenchmarks.measurement], for: services[0])[0]
        }

        /// Sends `count` 20-byte values the way an application must: `updateValue` until
        /// it says the link is full, then `readyToUpdateSubscribers`.
        func produce(_ count: Int) async {
            var value = [UInt8](repeating: 0, count: 20)
            for i in 0..<count {
                value[0] = UInt8(truncatingIfNeeded: i)
                while !(await manager.updateValue(value, for: published)) { await manager.readyToUpdateSubscribers() }
            }
        }
    }

    static func all(filter: String?, quick: Bool) async -> [BenchmarkResult] {
        var results: [BenchmarkResult] = []
        let names = ["api.notify.memory", "api.notify.h4", "api.notify.slow_consumer", "api.connections.memory"]
        for name in names where filter.map({ name.contains($0) }) ?? true {
            do {
                switch name {
                case "api.notify.memory": results.append(try await notifyMemory(count: quick ? 50_000 : 200_000))
                case "api.notify.h4": results.append(try await H4NotifyBenchmark.run(count: quick ? 50_000 : 200_000))
                case "api.notify.slow_consumer": results.append(try await slowConsumer(count: 20_000))
                default: results.append(try await connections(count: quick ? 200 : 1_000))
                }
            } catch {
                results.append(BenchmarkResult(name: name, opsPerSecond: .nan, allocationsPerOperation: .nan,
                                               extra: [("error", .string("\(error)"))]))
            }
        }
        // The H4 figure next to the memory one of the same run: the cost of the socket,
        // H4, HCI, ACL and L2CAP against the in-process link (which also runs the server).
        if let memory = results.first(where: { $0.name == "api.notify.memory" }),
           let index = results.firstIndex(where: { $0.name == "api.notify.h4" }) {
            results[index].extra.append(("memory_notifications_per_sec", .double(memory.opsPerSecond.rounded())))
        }
        return results
    }

    /// Notifications per second from `updateValue` to the consumer, with allocations per
    /// notification counted across every thread.
    static func notifyMemory(count: Int) async throws -> BenchmarkResult {
        let rig = try await Rig()
        let values = await rig.peripheral.notifications(for: rig.characteristic)
        try await rig.peripheral.setNotifyValue(true, for: rig.characteristic)
        let consumer = Task { await consume(values, count: count) }
        let allocationsBefore = attune_alloc_count()
        let start = ContinuousClock.now
        await rig.produce(count)
        let (delivered, lost) = await consumer.value
        let elapsed = ContinuousClock.now - start
        let allocations = attune_alloc_count() &- allocationsBefore
        let stats = rig.peripheral.statistics
        await rig.central.cancelConnection(rig.peripheral)
        return BenchmarkResult(
            name: "api.notify.memory", opsPerSecond: Double(count) / seconds(elapsed),
            allocationsPerOperation: Double(allocations) / Double(count),
            extra: [("unit", .string("notifications")), ("delivered", .int(delivered)), ("lost", .int(lost)),
                    ("pdus_per_batch", .double((Double(stats.pdusReceived) / Double(max(1, stats.batchesReceived)) * 10).rounded() / 10))])
    }

    /// The slow consumer of the issue: it pauses 1 ms every 100 values. Every value must
    /// be delivered or reported lost; "silently lost" must be 0.
    static func slowConsumer(count: Int) async throws -> BenchmarkResult {
        let rig = try await Rig()
        let values = await rig.peripheral.notifications(for: rig.characteristic)
        try await rig.peripheral.setNotifyValue(true, for: rig.characteristic)
        let consumer = Task { await consume(values, count: count, pausingEvery: 100) }
        let start = ContinuousClock.now
        await rig.produce(count)
        let (delivered, lost) = await consumer.value
        let elapsed = ContinuousClock.now - start
        let stats = rig.peripheral.statistics
        await rig.central.cancelConnection(rig.peripheral)
        return BenchmarkResult(
            name: "api.notify.slow_consumer", opsPerSecond: Double(delivered) / seconds(elapsed), allocationsPerOperation: .nan,
            extra: [("sent", .int(count)), ("delivered", .int(delivered)), ("reported_lost", .int(lost)),
                    ("silently_lost", .int(count - delivered - lost)), ("pauses", .int(stats.backPressurePauses)),
                    ("peak_rss_mb", .double(peakRSSMegabytes()))])
    }

    /// RSS per connection: `count` centrals' links to one peripheral manager, each
    /// connected and ready (MTU exchanged, database discovered).
    static func connections(count: Int) async throws -> BenchmarkResult {
        let radio = MemoryRadio()
        let manager = try PeripheralManager(transport: .memory(radio), name: "Hub")
        _ = try await manager.add(ServiceDefinition(service, characteristics: [
            CharacteristicDefinition(measurement, properties: [.notify]),
        ]))
        try await manager.startAdvertising(localName: "Hub", serviceUUIDs: [service])
        let central = CentralManager(transport: .memory(radio))
        var found: Advertisement?
        for await ad in try central.scan(services: [service]) {
            found = ad
            break
        }
        guard let ad = found else { throw AttuneError.attributeNotFound("advertisement") }
        let before = currentRSSKilobytes()
        let start = ContinuousClock.now
        // Each connection is its own Peripheral object: one central manager per link, as
        // the memory radio gives each manager a controller (and address) of its own.
        var centrals: [CentralManager] = []
        var peripherals: [Peripheral] = []
        for _ in 0..<count {
            let c = CentralManager(transport: .memory(radio))
            let p = c.peripheral(address: ad.address, type: ad.addressType ?? .random)
            try await c.connect(p)
            centrals.append(c)
            peripherals.append(p)
        }
        let elapsed = ContinuousClock.now - start
        let after = currentRSSKilobytes()
        let connected = await manager.connectedCentrals.count
        for (c, p) in zip(centrals, peripherals) { await c.cancelConnection(p) }
        withExtendedLifetime(central) {}
        return BenchmarkResult(
            name: "api.connections.memory", opsPerSecond: Double(count) / seconds(elapsed), allocationsPerOperation: .nan,
            extra: [("unit", .string("connections")), ("connected", .int(connected)),
                    ("rss_per_connection_kib", .double((Double(after - before) / Double(count) * 10).rounded() / 10))])
    }

    /// Takes values until `count` are delivered or reported lost (or the stream ends),
    /// pausing 1 ms after every `pausingEvery` values when given; returns delivered and
    /// reported lost.
    static func consume(_ values: NotificationStream, count: Int, pausingEvery: Int? = nil) async -> (delivered: Int, lost: Int) {
        var n = 0, lost = 0
        do {
            for try await notification in values {
                n += 1
                lost += notification.lostBefore
                if let every = pausingEvery, n % every == 0 { try? await Task.sleep(for: .milliseconds(1)) }
                if n + lost == count { break }
            }
        } catch {}
        return (n, lost)
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// VmHWM: the process's peak resident set so far.
    static func peakRSSMegabytes() -> Double {
        (Double(statusField("VmHWM:")) / 1024 * 10).rounded() / 10
    }

    static func currentRSSKilobytes() -> Int { statusField("VmRSS:") }

    private static func statusField(_ name: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        }
        return 0
    }
}
