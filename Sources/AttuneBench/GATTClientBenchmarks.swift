import ATT
import CAllocCounter
import Dispatch
import GATT
import GATTTestSupport
import Synchronization

/// GATT client figures: notification dispatch to an `AsyncSequence` consumer, and full
/// discovery of a 20-service, 100-characteristic database over the in-memory pipe.
enum GATTClientBenchmarks {
    static var all: [Benchmark] {
        [
            .custom("gatt.client.notification_dispatch") { notificationDispatch() },
            .custom("gatt.client.full_discovery_20x100") { fullDiscovery() },
        ]
    }

    /// Runs an async body to completion from synchronous benchmark code.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let box = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let value = await body()
            box.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return box.withLock { $0! }
    }

    /// Notifications of 20-byte values go through the whole client path (bearer decode,
    /// client engine, action list) into a ``GATTNotificationStream`` and out of its
    /// async iterator, all in one task so the figure is per core: produce a batch of 256,
    /// then consume it with `await iterator.next()`.
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
        var twoTasks = 0.0
        for _ in 0..<3 { twoTasks = max(twoTasks, Double(total) / twoTaskRound(pdus: pdus, total: total)) }
        return BenchmarkResult(name: "", opsPerSecond: best, allocationsPerOperation: allocationsPerNotification,
                               extra: [("scope", .string("engine-only: GATTNotificationStream, no public API")), ("unit", .string("notifications/s")), ("value_bytes", .int(20)), ("batch", .int(256)),
                                       ("two_tasks_per_s", .double(twoTasks.rounded()))])
    }

    /// The same path with producer and consumer in separate tasks (as an application
    /// would run them; they may then use both cores). The producer waits while more than
    /// 64 Ki values are pending, so nothing is dropped.
    static func twoTaskRound(pdus: [[UInt8]], total: Int) -> Double {
        blocking {
            let stream = GATTNotificationStream(bufferLimit: 1 << 20)
            let clock = ContinuousClock()
            let start = clock.now
            let consumer = Task {
                var count = 0
                for await n in stream { count &+= 1; blackHole(n.value.count) }
                return count
            }
            var connection = GATTLink(configuration: GATTClientConfiguration(exchangesMTUOnStart: false))
            var actions: [GATTClientAction] = []
            var batch: [GATTNotification] = []
            var produced = 0
            while produced < total {
                for k in 0..<256 { connection.receive(pdus[(produced &+ k) & 63][...], at: .zero, into: &actions) }
                produced += 256
                for action in actions {
                    if case let .deliver(event) = action, let n = GATTNotification(event) { batch.append(n) }
                }
                actions.removeAll(keepingCapacity: true)
                stream.yield(contentsOf: batch)
                batch.removeAll(keepingCapacity: true)
                while stream.pendingCount > 1 << 16 { await Task.yield() }
            }
            stream.finish()
            let consumed = await consumer.value
            precondition(consumed == produced, "lost notifications")
            let d = clock.now - start
            return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
        }
    }

    /// One timed run: seconds taken and heap allocations made (the whole process's,
    /// counted around the run, so runtime allocations for the task are included).
    static func dispatchRound(pdus: [[UInt8]], total: Int) -> (Double, UInt64) {
        blocking {
            var connection = GATTLink(configuration: GATTClientConfiguration(exchangesMTUOnStart: false))
            let stream = GATTNotificationStream()
            var iterator = stream.makeAsyncIterator()
            var actions: [GATTClientAction] = []
            actions.reserveCapacity(256)
            var batch: [GATTNotification] = []
            batch.reserveCapacity(256)
            var checksum = 0
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
                    if case let .deliver(event) = action, let n = GATTNotification(event) { batch.append(n) }
                }
                actions.removeAll(keepingCapacity: true)
                let count = batch.count
                stream.yield(contentsOf: batch)
                batch.removeAll(keepingCapacity: true)
                for _ in 0..<count {
                    if let n = await iterator.next() { checksum &+= Int(n.handle.rawValue) &+ n.value.count }
                }
            }
            let d = clock.now - start
            let allocations = attune_alloc_count() &- allocationsBefore
            blackHole(checksum)
            return (Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18, allocations)
        }
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
