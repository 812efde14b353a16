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
    @Test("two keep devices on two one-slot adapters: both connect, one per adapter, each adapter with 1 slot used",
          .timeLimit(.minutes(10)))
    func devicesSpreadOverAdapters() async throws {
        try await GatewayTestRig.run { rig in
            // Started first, so they take the radio's first two addresses.
            _ = try await rig.demo()
            _ = try await rig.demo()
            let observer = try rig.recorder("attune/#", id: "pool-observer")
            let gateway = try rig.gateway(rig.config(clientID: "attune-pool", adapters: [("memory-a", 1), ("memory-b", 1)], devices: [
                GatewayTestRig.heartRateDevice("one", address: "C0:00:00:00:00:01"),
                GatewayTestRig.heartRateDevice("two", address: "C0:00:00:00:00:02"),
            ]), adapters: ["memory-a", "memory-b"], will: true)
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
        }
    }

    @Test("a device's adapters: list is its affinity: it goes to memory-b though memory-a, first in the config, has room",
          .timeLimit(.minutes(10)))
    func affinityChoosesTheAdapter() async throws {
        try await GatewayTestRig.run { rig in
            _ = try await rig.demo()
            let observer = try rig.recorder("attune/#", id: "affinity-observer")
            let gateway = try rig.gateway(rig.config(clientID: "attune-affinity", adapters: [("memory-a", 2), ("memory-b", 2)], devices: [
                GatewayTestRig.heartRateDevice("one", extra: "\"adapters\": [\"memory-b\"],"),
            ]), adapters: ["memory-a", "memory-b"])
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
        }
    }

    @Test("an adapter that powers off goes down in the pool: its device moves to the other adapter and connects there",
          .timeLimit(.minutes(10)))
    func poweredOffAdapterHandsItsDevicesOn() async throws {
        try await GatewayTestRig.run { rig in
            _ = try await rig.demo()
            let observer = try rig.recorder("attune/#", id: "power-observer")
            // The gateway opens memory-a's central, then memory-b's: the radio's next two addresses.
            let gateway = try rig.gateway(rig.config(clientID: "attune-power", adapters: [("memory-a", 2), ("memory-b", 2)],
                                                     devices: [GatewayTestRig.heartRateDevice("one")]),
                                          adapters: ["memory-a", "memory-b"])
            await gateway.start()
            let onA = await observer.first { message in
                message.topic == "attune/dev/one/explain" && (message.text ?? "").contains("\"adapter\": \"memory-a\", \"connected\": true")
            }
            try #require(onA != nil, "first on memory-a, the first adapter")
            let off = observer.messages.count
            rig.radio.setPowered(false, controller: BluetoothAddress(rawValue: 0xC0_00_00_00_00_02))
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
        }
    }
}
