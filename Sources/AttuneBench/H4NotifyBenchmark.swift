import Attune
import CAllocCounter
import ControllerTestSupport
import Foundation

/// `api.notify.h4`: notifications per second through the public API over Attune's own
/// userland host, from an in-process ``FloodingController`` on a UNIX socket. Unlike
/// `api.notify.memory`, every value crosses a real socket as H4 bytes and goes through
/// the H4 decoder, HCI, ACL and L2CAP before the GATT client sees it.
enum H4NotifyBenchmark {
    static func run(count: Int) async throws -> BenchmarkResult {
        let controller = FloodingController()
        defer { controller.close() }
        let central = CentralManager(transport: .h4(.unix(path: controller.path)))
        controller.start()
        for await state in central.stateUpdates where state != .unknown { break }
        let peripheral = central.peripheral(address: BluetoothAddress(0xC6, 5, 4, 3, 2, 1), type: .random)
        try await central.connect(peripheral, preferredMTU: 23)
        let services = try await peripheral.discoverServices([APIBenchmarks.service])
        let characteristic = try await peripheral.discoverCharacteristics([APIBenchmarks.measurement], for: services[0])[0]
        let values = await peripheral.notifications(for: characteristic)
        try await peripheral.setNotifyValue(true, for: characteristic)
        let consumer = Task {
            let (n, lost) = await APIBenchmarks.consume(values, count: count)
            return (n, lost, ContinuousClock.now)
        }
        let statsBefore = peripheral.statistics
        let allocationsBefore = attune_alloc_count()
        controller.flood(count)
        // The host drops what the link does not take in time and counts it; the stream
        // never shows those, so once every flooded value is taken or counted the link is
        // closed, which ends the stream (the consumer's count alone could wait forever).
        let watcher = Task {
            while !Task.isCancelled {
                let now = peripheral.statistics
                if now.notificationsReceived - statsBefore.notificationsReceived
                    + now.pdusDropped - statsBefore.pdusDropped >= count {
                    await central.cancelConnection(peripheral)
                    return
                }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        let (delivered, lost, end) = await consumer.value
        watcher.cancel()
        let allocations = attune_alloc_count() &- allocationsBefore
        // The writer stamps the flood as it hands the first notification to write().
        let elapsed = controller.firstNotificationWritten.map { $0.duration(to: end) } ?? .zero
        let stats = peripheral.statistics
        await central.cancelConnection(peripheral)
        let pdus = stats.pdusReceived - statsBefore.pdusReceived
        let batches = stats.batchesReceived - statsBefore.batchesReceived
        return BenchmarkResult(
            name: "api.notify.h4", opsPerSecond: Double(count) / APIBenchmarks.seconds(elapsed),
            allocationsPerOperation: Double(allocations) / Double(count),
            extra: [("unit", .string("notifications")), ("delivered", .int(delivered)), ("lost", .int(lost)),
                    ("pdus_per_batch", .double((Double(pdus) / Double(max(1, batches)) * 10).rounded() / 10)),
                    ("back_pressure_pauses", .int(stats.backPressurePauses - statsBefore.backPressurePauses)),
                    ("dropped_by_transport", .int(stats.pdusDropped - statsBefore.pdusDropped))])
    }
}
