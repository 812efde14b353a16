import Attune
import Foundation
import Gateway
import GatewayConfig
import MQTTClient
import MQTTTestSupport
import Synchronization
import Testing

/// The broker is stopped and started again (same port) while three peripherals on the
/// memory radio notify through the gateway: every value a peripheral sent reaches the
/// subscriber after the reconnect, or is counted as dropped on the stats topic.
///
/// The subscriber is Debian's `mosquitto_sub` with a persistent MQTT 3.1.1 session on a
/// broker with persistence and no queue limit, so whether the gateway or the subscriber
/// reconnects first, the broker keeps every message for it: a value it never sees was lost
/// by the gateway, not by the test's own subscriber.
@Suite(.serialized)
struct GatewayBrokerRestartTests {
    static let sequence = BluetoothUUID("A77E00F1-5A1D-4E6B-9C3F-7B2E0D6C4A10")!
    static let service = BluetoothUUID("A77E00F0-5A1D-4E6B-9C3F-7B2E0D6C4A10")!
    static let deviceCount = 3

    /// Peripheral `k` notifies `k * 1_000_000 + n` (u32le) for its n-th value, so one
    /// subscriber on every device's topic still tells each value apart.
    static func address(_ index: Int) -> BluetoothAddress { BluetoothAddress(rawValue: 0xC0_00_00_00_00_A0 | UInt64(index)) }

    static func config(on rig: GatewayTestRig) -> String {
        let devices = (0..<deviceCount).map { index in
            """
            {"name": "s\(index)", "address": "\(address(index))", "address_type": "random", "connect": "keep",
             "gatt": [{"characteristic": "\(sequence)", "notify": true, "topic": "seq", "decode": "u32le"}]}
            """
        }
        return rig.config(clientID: "attune-restart", adapters: [("memory", deviceCount)], devices: devices)
    }

    /// One peripheral and how many values it has sent to a subscribed central.
    final class Counter: Sendable {
        let manager: PeripheralManager
        let characteristic: PublishedCharacteristic
        let base: UInt32
        let sentCount = Mutex(0)
        init(manager: PeripheralManager, characteristic: PublishedCharacteristic, base: UInt32) {
            self.manager = manager
            self.characteristic = characteristic
            self.base = base
        }

        var sent: Int { sentCount.withLock { $0 } }

        /// Notifies the next value every `interval` while a central is subscribed; a value
        /// counts as sent once the link took it (a full link is waited on, never skipped).
        func run(interval: Duration) async {
            while !Task.isCancelled {
                if !(await manager.subscribedCentrals(for: characteristic)).isEmpty {
                    let n = base + UInt32(sent)
                    let bytes = (0..<4).map { UInt8(truncatingIfNeeded: n >> (8 * $0)) }
                    while !(await manager.updateValue(bytes, for: characteristic)) {
                        if Task.isCancelled { return }
                        await manager.readyToUpdateSubscribers()
                    }
                    sentCount.withLock { $0 += 1 }
                }
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
    }

    static func startPeripherals(on radio: MemoryRadio) async throws -> [Counter] {
        var counters: [Counter] = []
        for index in 0..<deviceCount {
            radio.assignNextAddress(address(index))
            let manager = try PeripheralManager(transport: .memory(radio), name: "seq\(index)")
            let published = try await manager.add(contentsOf: [
                ServiceDefinition(service, characteristics: [
                    CharacteristicDefinition(sequence, properties: [.notify], value: [0, 0, 0, 0]),
                ]),
            ])
            try await manager.startAdvertising(localName: "seq\(index)", serviceUUIDs: [service])
            let characteristic = try #require(published.first?[sequence])
            counters.append(Counter(manager: manager, characteristic: characteristic, base: UInt32(index) * 1_000_000))
        }
        return counters
    }

    /// The `value` of each JSON payload (a decoded u32le).
    static func values(_ payloads: [String]) -> [Int] {
        payloads.compactMap { payload in
            guard let object = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any] else { return nil }
            return object["value"] as? Int
        }
    }

    /// The number under `key` in the stats JSON.
    static func number(_ key: String, in text: String) -> Int? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return nil }
        return object[key] as? Int
    }

    /// Runs the restart with the gateway's outbound queue bounded to `capacity`; returns
    /// (sent, delivered, dropped on the stats topic) after checking the accounting.
    func restart(capacity: Int, outage: Int) async throws -> (sent: Int, delivered: Int, dropped: Int) {
        try await GatewayTestRig.run(broker: .init(persistence: true, extraLines: ["max_queued_messages 0"])) { rig in
            let broker = rig.broker
            let subscriber = try MosquittoSubscriber(port: broker.port, topic: "attune/dev/+/seq", clientID: "restart-values")
            #expect(await subscriber.waitSubscribed(timeout: hangGuard))
            let counters = try await Self.startPeripherals(on: rig.radio)
            let configuration = try GatewayConfiguration(yaml: Array(Self.config(on: rig).utf8))
            let mqtt = try rig.mqtt(for: configuration, will: true, outboundCapacity: capacity)
            let gateway = try rig.gateway(configuration, mqtt: mqtt)
            await gateway.start()
            let senders = counters.map { counter in Task { await counter.run(interval: .milliseconds(20)) } }

            // Values from every device flow before the broker goes.
            let bases = counters.map { Int($0.base) }
            let flowing = await subscriber.waitFor(timeout: hangGuard) { lines in
                let seen = Self.values(lines.filter { $0.hasPrefix("MSG ") }.map { String($0.dropFirst(4)) })
                return bases.allSatisfy { base in seen.contains { $0 >= base && $0 < base + 1_000_000 } }
            }
            try #require(flowing, "every device's values reach the subscriber before the restart")

            broker.stop()
            // The outage lasts until each device has sent `outage` more values (events, not a delay).
            let atStop = counters.map(\.sent)
            try await eventually("each device sent its outage values") { zip(counters, atStop).allSatisfy { $0.sent >= $1 + outage } }
            try broker.restart()
            // Values sent once the gateway is back on the broker pass straight through.
            try await eventually("the gateway is back on the broker") { mqtt.statistics.connections >= 2 }
            let atReconnect = counters.map(\.sent)
            try await eventually("twenty more values from each device") { zip(counters, atReconnect).allSatisfy { $0.sent >= $1 + 20 } }
            for sender in senders { sender.cancel() }
            for sender in senders { await sender.value }
            let sent = counters.map(\.sent)
            let expected = Set(zip(bases, sent).flatMap { base, count in (0..<count).map { base + $0 } })

            // Everything the gateway still holds goes out; the subscriber gets what the broker kept.
            try await eventually("the client has sent all it held") {
                let s = mqtt.statistics
                return s.queued == 0 && s.inFlight == 0
            }
            let droppedByClient = mqtt.statistics.droppedMessages
            _ = await subscriber.waitFor(timeout: hangGuard) { lines in
                let seen = Set(Self.values(lines.filter { $0.hasPrefix("MSG ") }.map { String($0.dropFirst(4)) }))
                return seen.intersection(expected).count + droppedByClient >= expected.count
            }
            let delivered = Set(Self.values(subscriber.payloads))
            #expect(delivered.isSubset(of: expected), "only values the peripherals sent: \(delivered.subtracting(expected).sorted().prefix(10))")

            // The stats topic's count, from a message published after the queue drained (a live
            // one, not the retained copy from before this subscription): later than any drop.
            // (Its mqtt_queued may say 1: the adapters message it follows is in the queue then.)
            let stats = try rig.recorder("attune/gateway/attune-restart/stats", id: "restart-stats")
            let fresh = await stats.first(within: hangGuard) { !$0.retain }
            let text = try #require(fresh?.text, "a stats message after the queue drained: \(stats.messages.map { "\($0.retain) \($0.text ?? "")" }) \(mqtt.statistics)")
            let dropped = try #require(Self.number("mqtt_dropped", in: text), "\(text)")
            #expect(dropped == droppedByClient, "the stats topic says what the client counted: \(text)")
            let missing = expected.subtracting(delivered)
            // Every value not delivered is among those counted (the count also holds housekeeping
            // messages dropped in the outage: adapters, stats, state), so missing ≤ dropped.
            #expect(missing.count <= dropped, "\(missing.count) values lost but \(dropped) counted: \(missing.sorted().prefix(20))")
            #expect(delivered.count + dropped >= expected.count)
            // Which values go is the queue's rule, oldest waiting first, and
            // MQTTBrokerTests.queueBoundDropsOldest checks that order exactly. Here the pattern
            // is not fixed: the queue may still be full after the reconnect, while the window
            // drains it in batches and values keep coming, so drops and delivered batches can
            // alternate (seen under load: 9-122 missing, 123-126 delivered, 127-132 missing,
            // 133-138 delivered). What holds here: every value sent once the gateway was back
            // arrives, and every value missing is counted.
            for (base, count) in zip(bases, sent) {
                let sinceReconnect = Set((atReconnect[(base / 1_000_000)]..<count).map { base + $0 })
                #expect(sinceReconnect.isSubset(of: delivered), "values sent after the reconnect all arrived")
            }
            // A notification the stream lost before MQTT would be an uncounted loss here.
            for payload in subscriber.payloads where payload.contains("lost_before") {
                Issue.record("a notification was lost before MQTT: \(payload)")
            }
            print("broker restart, outbound capacity \(capacity): sent \(expected.count), delivered \(delivered.count), dropped (stats) \(dropped), missing \(missing.count)")
            await rig.close(stats)
            await gateway.stop()
            return (expected.count, delivered.count, dropped)
        }
    }

    @Test("large outbound queue: every value notified across the broker restart is delivered, none dropped",
          .timeLimit(.minutes(10)))
    func restartLosesNothing() async throws {
        let result = try await restart(capacity: 10_000, outage: 60)
        #expect(result.dropped == 0)
        #expect(result.delivered == result.sent, "delivered \(result.delivered) of \(result.sent)")
    }

    @Test("outbound queue of 100: the outage overflows it; what is not delivered is counted as dropped on the stats topic",
          .timeLimit(.minutes(10)))
    func restartCountsDrops() async throws {
        // 100 slots leave the queue room for the QoS 1 messages awaiting PUBACK after the
        // reconnect (150 values a second) even on a loaded machine; the outage is 240 values.
        let result = try await restart(capacity: 100, outage: 80)
        #expect(result.dropped > 0, "3 devices × 80 values cannot fit 100 slots")
        #expect(result.delivered < result.sent)
    }
}
