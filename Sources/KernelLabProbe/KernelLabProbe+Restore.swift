import Attune
import Foundation
import Glibc
import struct Transport.KernelAdapter
import class EventLoop.KernelEventLoop

/// State restoration across processes, on the kernel transport: process A connects with
/// automatic reconnect, subscribes and is killed with SIGKILL; process B, on the same
/// store, calls `resumeAutoConnect()` and receives notifications through the restored
/// tree, with no store editing and no discovery call. The peripheral is a third process.
extension KernelLabProbe {
    static let restoreService = BluetoothUUID(0xFEA0)
    static let restoreCounter = BluetoothUUID(0xFEA1)

    /// Serves a counter on hci1, notified every 50 ms to whoever subscribed; runs until
    /// killed.
    static func restorePeripheralScenario(log: ProbeLog) async {
        do {
            let manager = try PeripheralManager(transport: .kernel("hci1"), name: "Restore")
            let service = try await manager.add(ServiceDefinition(restoreService, characteristics: [
                CharacteristicDefinition(restoreCounter, properties: [.notify]),
            ]))
            try await manager.startAdvertising(localName: "Restore", serviceUUIDs: [restoreService])
            log.pass("restore peripheral: serving", "\(service.characteristics[0].valueHandle)")
            var counter: UInt32 = 0
            while true {
                counter &+= 1
                let value = withUnsafeBytes(of: counter.littleEndian) { Array($0) }
                _ = await manager.updateValue(value, for: service.characteristics[0])
                try await Task.sleep(for: .milliseconds(50))
            }
        } catch {
            log.fail("restore peripheral: serving", "\(error)")
        }
    }

    static func peripheralAdapter() -> KernelAdapter? {
        (try? KernelAdapter.list())?.first { $0.index == 1 }
    }

    /// Process A: connect with automatic reconnect, subscribe, see one value, then wait
    /// to be killed.
    static func restoreFirstProcess(log: ProbeLog, store directory: String) async {
        guard let target = peripheralAdapter() else { return log.fail("restore a: adapters", "no hci1") }
        guard let store = try? FileStore(directory: directory) else { return log.fail("restore a: store", directory) }
        do throws(AttuneError) {
            let central = CentralManager(transport: .kernel("hci0"), store: store)
            let peripheral = central.peripheral(address: target.address, type: .public)
            try await central.connect(peripheral, timeout: .seconds(15), reconnect: .automatic(.standard))
            guard let service = try await peripheral.discoverServices([restoreService]).first,
                  let counter = try await peripheral.discoverCharacteristics([restoreCounter], for: service).first
            else { return log.fail("restore a: discover", "no counter characteristic") }
            let values = await peripheral.notifications(for: counter)
            try await peripheral.setNotifyValue(true, for: counter)
            var iterator = values.makeAsyncIterator()
            guard let first = try await iterator.next() else { return log.fail("restore a: notified", "stream ended") }
            log.pass("restore a: notified", "\(first.value.count) bytes; waiting for SIGKILL")
            while true { try? await Task.sleep(for: .seconds(60)) }
        } catch {
            log.fail("restore a", "\(error)")
        }
    }

    /// Process B: resume from the store alone and listen through the restored tree.
    static func restoreSecondProcess(log: ProbeLog, store directory: String) async {
        guard let store = try? FileStore(directory: directory) else { return log.fail("restore b: store", directory) }
        do throws(AttuneError) {
            let central = CentralManager(transport: .kernel("hci0"), store: store)
            let marked = central.store.records().filter(\.autoConnect)
            marked.count == 1 ? log.pass("restore b: marked for restoration", "\(marked[0].identifier)")
                : log.fail("restore b: marked for restoration", "\(marked.count) records marked")
            let (connected, failed) = await central.resumeAutoConnect(timeout: .seconds(15))
            guard let peripheral = connected.first else {
                return log.fail("restore b: resume", "nothing connected; \(failed)")
            }
            log.pass("restore b: resume", "connected \(peripheral.address)")
            guard let counter = await peripheral.services?.first(where: { $0.uuid == restoreService })?
                .characteristics?.first(where: { $0.uuid == restoreCounter }) else {
                return log.fail("restore b: cached tree", "no counter characteristic before any discovery call")
            }
            log.pass("restore b: cached tree", "\(counter.valueHandle)")
            let values = await peripheral.notifications(for: counter)
            var iterator = values.makeAsyncIterator()
            var seen = 0
            let start = KernelEventLoop.now()
            while seen < 3, let _ = try await iterator.next() { seen += 1 }
            seen == 3 ? log.pass("restore b: notified", "3 values after \(ms(elapsed(since: start))) ms, subscription restored")
                : log.fail("restore b: notified", "\(seen) values")
            await central.cancelConnection(peripheral)
        } catch {
            log.fail("restore b", "\(error)")
        }
    }
}
