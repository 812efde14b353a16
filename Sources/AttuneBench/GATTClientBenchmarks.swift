import ATT
import CAllocCounter
import GATT
import GATTTestSupport

/// GATT client figures: notification dispatch in the client engine, and full
/// discovery of a 20-service, 100-characteristic database over the in-memory pipe.
enum GATTClientBenchmarks {
    static var all: [Benchmark] {
        [
            .custom("gatt.client.notification_dispatch") { notificationDispatch() },
            .custom("gatt.client.full_discovery_20x100") { fullDiscovery() },
        ]
    }

    /// Notifications of 20-byte values go through the client engine itself (bearer decode,
    /// client engine, action list) and are read out of its actions as ``GATTNotification``s,
    /// all in one task so the figure is per core: 256 PDUs in, then their notifications out.
    /// The public path (`api.notify.*`) is compared with this figure.
    static func notificationDispatch() -> BenchmarkResult {
        let pdus: [[UInt8]] = (0..<64).map { i in [0x1B, UInt8(i + 1), 0x00] + (0..<20).map { UInt8(truncatingIfNeeded: $0 &+ i) } }
        let total = 2_000_000
        var best = 0.0
        var allocationsPerNotification = 0.0
        for _ in 0..<3 {
            let (seconds, allocations) = dispatchRound(pdus: pdus, total: total)
            best = max(best, Double(total) / seconds)
            allocationsPerNotification = Double(allocations) / Double(total)
        }
        return BenchmarkResult(name: "", opsPerSecond: best, allocationsPerOperation: allocationsPerNotification,
                               extra: [("scope", .string("engine-only: GATTLink and its actions, no public API")), ("unit", .string("notifications/s")), ("value_bytes", .int(20)), ("batch", .int(256))])
    }

    /// One timed run: seconds taken and heap allocations made (the whole process's,
    /// counted around the run).
    static func dispatchRound(pdus: [[UInt8]], total: Int) -> (Double, UInt64) {
        var connection = GATTLink(configuration: GATTClientConfiguration(exchangesMTUOnStart: false))
        var actions: [GATTClientAction] = []
        actions.reserveCapacity(256)
        var checksum = 0
        var delivered = 0
        let clock = ContinuousClock()
        let allocationsBefore = attune_alloc_count()
        let start = clock.now
        var produced = 0
        while produced < total {
            for k in 0..<256 {
                connection.receive(pdus[(produced &+ k) & 63][...], at: .zero, into: &actions)
            }
            produced += 256
            for action in actions {
                if case let .deliver(event) = action, let n = GATTNotification(event) {
                    checksum &+= Int(n.handle.rawValue) &+ n.value.count
                    delivered &+= 1
                }
            }
            actions.removeAll(keepingCapacity: true)
        }
        let d = clock.now - start
        let allocations = attune_alloc_count() &- allocationsBefore
        precondition(delivered == produced, "lost notifications")
        blackHole(checksum)
        return (Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18, allocations)
    }

    /// Full discovery (Exchange MTU at 517, then the BlueZ-order bootstrap) of a database
    /// with 20 services × 5 characteristics, each with a CCCD and a user description,
    /// against our server over the in-memory pipe. Best of several runs, in ms.
    static func fullDiscovery() -> BenchmarkResult {
        let database = SyntheticDatabase.make(services: 20, characteristicsPerService: 5)
        var configuration = GATTServerConfiguration()
        configuration.rxMTU = 517
        let server = GATTServer(database: database, configuration: configuration)
        var best = Double.infinity
        var pdus = 0
        var allocations: UInt64 = 0
        for round in 0..<30 {
            var pipe = GATTMemoryPipe(server: server, clientConfiguration: GATTClientConfiguration(rxMTU: 517, discoversOnStart: true))
            let t = BenchmarkRunner.time { pipe.start() }
            if round == 29 {
                var again = GATTMemoryPipe(server: server, clientConfiguration: GATTClientConfiguration(rxMTU: 517, discoversOnStart: true))
                allocations = countAllocations { again.start() }
            }
            guard pipe.client.client.isReady, pipe.client.client.database.characteristics.count == 104 else {
                fatalError("discovery did not complete: \(pipe.client.client.database.characteristics.count) characteristics")
            }
            best = min(best, t)
            pdus = pipe.pdusToServer + pipe.pdusToClient
        }
        return BenchmarkResult(name: "", opsPerSecond: 1 / best, allocationsPerOperation: Double(allocations),
                               extra: [("ms", .double((best * 1e5).rounded() / 100)), ("pdus", .int(pdus)),
                                       ("characteristics", .int(100)), ("services", .int(20))])
    }
}
