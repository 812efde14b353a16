import Attune
import Foundation
import Gateway
import GatewayConfig
import MQTTClient
import MQTTTestSupport
import Testing

/// Several adapters in one gateway: two controllers on one memory radio, one slot each,
/// two keep devices. The pool spreads them, one per adapter, and the adapters topic
/// counts each adapter's slots from its own scheduler.
@Suite(.serialized)
struct GatewayPoolTests {
    static func config(port: Int) -> String {
        """
        {"mqtt": {"url": "mqtt://127.0.0.1:\(port)", "client_id": "attune-pool", "base": "attune"},
         "adapters": [{"transport": "memory-a", "max_connections": 1}, {"transport": "memory-b", "max_connections": 1}],
         "devices": [
           {"name": "one", "address": "C0:00:00:00:00:01", "address_type": "random", "connect": "keep",
            "gatt": [{"characteristic": "2a37", "notify": true, "topic": "heart_rate", "decode": "heart_rate_measurement"}]},
           {"name": "two", "address": "C0:00:00:00:00:02", "address_type": "random", "connect": "keep",
            "gatt": [{"characteristic": "2a37", "notify": true, "topic": "heart_rate", "decode": "heart_rate_measurement"}]}
         ]}
        """
    }

    @Test("two keep devices on two one-slot adapters: both connect, one per adapter, each adapter with 1 slot used",
          .timeLimit(.minutes(2)))
    func devicesSpreadOverAdapters() async throws {
        let broker = try MosquittoBroker.start()
        defer { broker.stop() }
        let radio = MemoryRadio()
        // Started first, so they take the radio's first two addresses.
        let one = try await DemoPeripheral.start(on: .memory(radio))
        let two = try await DemoPeripheral.start(on: .memory(radio))
        let updates = [Task { await one.sendUpdates(interval: .milliseconds(100)) },
                       Task { await two.sendUpdates(interval: .milliseconds(100)) }]
        defer { for task in updates { task.cancel() } }
        let configuration = try GatewayConfiguration(yaml: Array(Self.config(port: broker.port).utf8))
        let observer = try BrokerRecorder(port: broker.port, filter: "attune/#", id: "pool-observer")
        var mqttConfiguration = try MQTTConfiguration(url: "mqtt://127.0.0.1:\(broker.port)", clientID: "attune-pool")
        mqttConfiguration.will = Gateway.offlineWill(configuration)
        let gateway = Gateway(configuration: configuration,
                              transports: ["memory-a": .memory(radio), "memory-b": .memory(radio)],
                              mqtt: try MQTTClient(configuration: mqttConfiguration))
        await gateway.start()

        for name in ["one", "two"] {
            let value = await observer.first { $0.topic == "attune/dev/\(name)/heart_rate" }
            #expect(value?.text?.contains("\"via\": \"attune-pool\"") == true, "\(name) delivers values")
        }
        let spread = await observer.first { message in
            guard message.topic == "attune/gateway/attune-pool/adapters", let text = message.text else { return false }
            return text.contains("\"transport\": \"memory-a\"") && text.contains("\"transport\": \"memory-b\"")
                && text.components(separatedBy: "\"slots_used\": 1, \"slots_free\": 0, \"devices\": 1,").count == 3
        }
        #expect(spread != nil, "each adapter holds one link: \(observer.messages.last { $0.topic.hasSuffix("/adapters") }?.text ?? "none")")
        // Each device's explain names its own adapter.
        var served: [String] = []
        for name in ["one", "two"] {
            let explain = await observer.first { message in
                message.topic == "attune/dev/\(name)/explain" && (message.text ?? "").contains("\"connected\": true")
            }
            let text = explain?.text ?? ""
            #expect(text.contains("\"lease\": \"mine\"") && text.contains("\"slot\": \"1/1\""), "\(text)")
            if let adapter = ["memory-a", "memory-b"].first(where: { text.contains("\"adapter\": \"\($0)\"") }) {
                served.append(adapter)
            }
        }
        #expect(Set(served) == ["memory-a", "memory-b"], "one device per adapter: \(served)")
        let owner = await observer.first { $0.topic == "attune/dev/one/owner" && !$0.payload.isEmpty }
        #expect(owner?.text?.hasPrefix("{\"gateway\":\"attune-pool\",\"until\":") == true, "\(owner?.text ?? "none")")
        #expect(owner?.messageExpiry.map { $0 >= 1 && $0 <= 8 } == true, "the record expires with the lease: \(String(describing: owner?.messageExpiry))")

        await gateway.stop()
        let cleared = await observer.first { $0.topic == "attune/dev/one/owner" && $0.payload.isEmpty }
        #expect(cleared != nil, "stop clears the lease")
        await observer.client.close()
    }

    @Test("a device's adapters: list is its affinity: it goes to memory-b though memory-a, first in the config, has room",
          .timeLimit(.minutes(2)))
    func affinityChoosesTheAdapter() async throws {
        let broker = try MosquittoBroker.start()
        defer { broker.stop() }
        let radio = MemoryRadio()
        let one = try await DemoPeripheral.start(on: .memory(radio))
        let updates = Task { await one.sendUpdates(interval: .milliseconds(100)) }
        defer { updates.cancel() }
        let text = """
        {"mqtt": {"url": "mqtt://127.0.0.1:\(broker.port)", "client_id": "attune-affinity", "base": "attune"},
         "adapters": [{"transport": "memory-a", "max_connections": 2}, {"transport": "memory-b", "max_connections": 2}],
         "devices": [
           {"name": "one", "address": "C0:00:00:00:00:01", "address_type": "random", "connect": "keep", "adapters": ["memory-b"],
            "gatt": [{"characteristic": "2a37", "notify": true, "topic": "heart_rate", "decode": "heart_rate_measurement"}]}
         ]}
        """
        let configuration = try GatewayConfiguration(yaml: Array(text.utf8))
        let observer = try BrokerRecorder(port: broker.port, filter: "attune/#", id: "affinity-observer")
        let gateway = Gateway(configuration: configuration,
                              transports: ["memory-a": .memory(radio), "memory-b": .memory(radio)],
                              mqtt: try MQTTClient(configuration: try MQTTConfiguration(url: "mqtt://127.0.0.1:\(broker.port)",
                                                                                        clientID: "attune-affinity")))
        await gateway.start()
        let explain = await observer.first { message in
            message.topic == "attune/dev/one/explain" && (message.text ?? "").contains("\"connected\": true")
        }
        #expect(explain?.text?.contains("\"adapter\": \"memory-b\"") == true, "\(explain?.text ?? "none")")
        let adapters = await observer.first { message in
            message.topic == "attune/gateway/attune-affinity/adapters"
                && (message.text ?? "").contains("\"transport\": \"memory-b\", \"powered\": true, \"scanning\": true, \"slots_used\": 1,")
        }
        #expect(adapters?.text?.contains("\"transport\": \"memory-a\", \"powered\": true, \"scanning\": true, \"slots_used\": 0,") == true,
                "\(adapters?.text ?? "none")")
        await gateway.stop()
        await observer.client.close()
    }

    @Test("an adapter that powers off goes down in the pool: its device moves to the other adapter and connects there",
          .timeLimit(.minutes(2)))
    func poweredOffAdapterHandsItsDevicesOn() async throws {
        let broker = try MosquittoBroker.start()
        defer { broker.stop() }
        let radio = MemoryRadio()
        let one = try await DemoPeripheral.start(on: .memory(radio))
        let updates = Task { await one.sendUpdates(interval: .milliseconds(100)) }
        defer { updates.cancel() }
        let text = """
        {"mqtt": {"url": "mqtt://127.0.0.1:\(broker.port)", "client_id": "attune-power", "base": "attune"},
         "adapters": [{"transport": "memory-a", "max_connections": 2}, {"transport": "memory-b", "max_connections": 2}],
         "devices": [
           {"name": "one", "address": "C0:00:00:00:00:01", "address_type": "random", "connect": "keep",
            "gatt": [{"characteristic": "2a37", "notify": true, "topic": "heart_rate", "decode": "heart_rate_measurement"}]}
         ]}
        """
        let configuration = try GatewayConfiguration(yaml: Array(text.utf8))
        let observer = try BrokerRecorder(port: broker.port, filter: "attune/#", id: "power-observer")
        // The gateway opens memory-a's central, then memory-b's: the radio's next two addresses.
        let gateway = Gateway(configuration: configuration,
                              transports: ["memory-a": .memory(radio), "memory-b": .memory(radio)],
                              mqtt: try MQTTClient(configuration: try MQTTConfiguration(url: "mqtt://127.0.0.1:\(broker.port)",
                                                                                        clientID: "attune-power")))
        await gateway.start()
        let onA = await observer.first { message in
            message.topic == "attune/dev/one/explain" && (message.text ?? "").contains("\"adapter\": \"memory-a\", \"connected\": true")
        }
        try #require(onA != nil, "first on memory-a, the first adapter")
        let off = observer.messages.count
        radio.setPowered(false, controller: BluetoothAddress(rawValue: 0xC0_00_00_00_00_02))
        let onB = await observer.first(after: off) { message in
            message.topic == "attune/dev/one/explain" && (message.text ?? "").contains("\"adapter\": \"memory-b\", \"connected\": true")
        }
        #expect(onB != nil, "moved to memory-b: \(observer.messages.last { $0.topic == "attune/dev/one/explain" }?.text ?? "none")")
        let values = await observer.first(after: off) { $0.topic == "attune/dev/one/heart_rate" }
        #expect(values != nil, "values flow through memory-b")
        let adapters = await observer.first(after: off) { message in
            message.topic == "attune/gateway/attune-power/adapters"
                && (message.text ?? "").contains("\"transport\": \"memory-a\", \"powered\": false")
                && (message.text ?? "").contains("\"transport\": \"memory-b\", \"powered\": true, \"scanning\": true, \"slots_used\": 1,")
        }
        #expect(adapters != nil, "\(observer.messages.last { $0.topic.hasSuffix("/adapters") }?.text ?? "none")")
        await gateway.stop()
        await observer.client.close()
    }
}
