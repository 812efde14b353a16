import Attune
import Foundation
import Gateway
import GatewayConfig
import MQTTClient
import MQTTTestSupport
import Testing

/// The gateway end to end against Debian's real mosquitto: the demo peripheral on the
/// memory radio, notified, read and written through MQTT, its link dropped and restored.
@Suite(.serialized)
struct GatewayMemoryTests {
    /// The demo peripheral as a keep device: heart rate notified, battery read, control written.
    static func config(on rig: GatewayTestRig) -> String {
        rig.config(clientID: "attune-test", devices: ["""
            {"name": "demo", "address": "C0:00:00:00:00:01", "address_type": "random", "connect": "keep",
             "gatt": [
               {"characteristic": "2a37", "notify": true, "topic": "heart_rate", "decode": "heart_rate_measurement"},
               {"characteristic": "2a19", "read": "60s", "topic": "battery", "decode": "battery_level"},
               {"characteristic": "A77E0003-5A1D-4E6B-9C3F-7B2E0D6C4A10", "write": true, "topic": "control", "decode": "hex"}
             ]}
            """], mqttExtra: ", \"discovery\": {\"prefix\": \"homeassistant\"}")
    }

    @Test("values arrive, set and result work (with the MQTT 5 response topic), availability follows the link, and stop says offline",
          .timeLimit(.minutes(10)))
    func endToEnd() async throws {
        try await GatewayTestRig.run { rig in
            _ = try await rig.demo()
            let observer = try rig.recorder("#")
            let gateway = try rig.gateway(Self.config(on: rig), will: true)
            await gateway.start()

            let online = await observer.first { $0.topic == "attune/gateway/attune-test/status" && $0.text == "online" }
            #expect(online != nil, "status online")
            let available = await observer.first { $0.topic == "attune/dev/demo/availability" && $0.text == "online" }
            #expect(available != nil, "the device is online once connected")
            let heartRateMessage = await observer.first { $0.topic == "attune/dev/demo/heart_rate" }
            let heartRate = try #require(heartRateMessage)
            let text = heartRate.text ?? ""
            #expect(text.contains("\"unit\": \"bpm\"") && text.contains("\"via\": \"attune-test\"") && text.contains("\"ts\": "), "\(text)")
            #expect(!heartRate.retain, "notifications are events: not retained")
            let batteryMessage = await observer.first { $0.topic == "attune/dev/demo/battery" }
            let battery = try #require(batteryMessage)
            // The demo counts its battery down as it runs: any percentage, read and decoded.
            #expect(battery.text?.hasPrefix("{\"value\": ") == true && battery.text?.contains("\"unit\": \"%\", \"hex\": ") == true,
                    "\(battery.text ?? "")")
            let discovery = await observer.first { $0.topic == "homeassistant/device/attune_attune-test_demo/config" }
            #expect(discovery?.text?.contains("\"state_topic\": \"attune/dev/demo/heart_rate\"") == true, "\(discovery?.text ?? "none")")
            let state = await observer.first { message in
                message.topic == "attune/dev/demo/state" && (message.text ?? "").contains("heart_rate")
                    && (message.text ?? "").contains("battery")
            }
            #expect(state?.text?.contains("\"battery\": {\"value\": ") == true, "\(state?.text ?? "none")")

            // set → the characteristic is written; the result on /result and on the response topic.
            try observer.client.publish(MQTTOutboundMessage(topic: "attune/dev/demo/control/set", payload: Array("0a0b".utf8),
                                                            qos: .atLeastOnce, responseTopic: "reply/control",
                                                            correlationData: [0xCA, 0xFE]))
            let resultMessage = await observer.first { $0.topic == "attune/dev/demo/control/result" }
            let result = try #require(resultMessage)
            #expect(result.text?.hasPrefix("{\"ok\": true, \"hex\": \"0a0b\"") == true, "\(result.text ?? "")")
            let replyMessage = await observer.first { $0.topic == "reply/control" }
            let reply = try #require(replyMessage)
            #expect(reply.correlationData == [0xCA, 0xFE])
            let refused = "attune/dev/demo/battery/result"
            try observer.client.publish(MQTTOutboundMessage(topic: "attune/dev/demo/battery/set", text: "1", qos: .atLeastOnce))
            let refusal = await observer.first { $0.topic == refused }
            #expect(refusal?.text?.contains("\"ok\": false") == true, "a read-only entry refuses writes: \(refusal?.text ?? "none")")

            // The link drops: offline; the scheduler reconnects: online, and values flow again.
            let before = observer.messages.count
            rig.radio.dropLinks(reason: HCIStatus.connectionTimeout)
            let offline = await observer.first(after: before) { $0.topic == "attune/dev/demo/availability" && $0.text == "offline" }
            #expect(offline != nil, "offline when the link drops")
            let dropped = observer.messages.count
            let back = await observer.first(after: dropped, within: hangGuard) { message in
                message.topic == "attune/dev/demo/availability" && message.text == "online"
            }
            #expect(back != nil)
            let reconnected = observer.messages.count
            let resumed = await observer.first(after: reconnected) { $0.topic == "attune/dev/demo/heart_rate" }
            #expect(resumed != nil, "values resume after the reconnect")
            _ = before

            await gateway.stop()
            let offlineStatus = await observer.first { $0.topic == "attune/gateway/attune-test/status" && $0.text == "offline" }
            #expect(offlineStatus != nil)
            // What a subscriber that comes later finds retained.
            let late = try rig.recorder("#", id: "gateway-test-late")
            for topic in ["attune/gateway/attune-test/status", "attune/dev/demo/availability", "attune/dev/demo/battery",
                          "attune/dev/demo/state", "attune/gateway/attune-test/adapters", "attune/gateway/attune-test/stats", "attune/dev/demo/explain",
                          "homeassistant/device/attune_attune-test_demo/config"] {
                let kept = await late.first { $0.topic == topic }
                #expect(kept?.retain == true, "\(topic) is retained")
            }
            #expect(late.messages.first { $0.topic == "attune/dev/demo/heart_rate" } == nil, "events are not retained")
            let stats = late.messages.first { $0.topic == "attune/gateway/attune-test/stats" }
            #expect(stats?.text?.contains("\"mqtt_dropped\": 0, \"mqtt_incoming_dropped\": 0") == true, "\(stats?.text ?? "none")")
        }
    }

    @Test("a keep device that goes silent past 5 × its learned interval has its CCCD read and written again, once, and values flow on",
          .timeLimit(.minutes(10)))
    func silentSubscriptionIsRearmed() async throws {
        try await GatewayTestRig.run { rig in
            // This test stops and restarts the updates itself.
            let demo = try await rig.demo(notifyingEvery: nil)
            var updates = Task { await demo.sendUpdates(interval: .milliseconds(100)) }
            let observer = try rig.recorder("attune/#")
            let gateway = try rig.gateway(Self.config(on: rig))
            await gateway.start()
            // The interval is learned from the first values (the watchdog needs three gaps).
            let learned = await observer.first { message in
                message.topic == "attune/dev/demo/explain" && (message.text ?? "").contains("notification_interval_s")
            }
            #expect(learned != nil, "the explain topic shows the learned interval")
            updates.cancel()
            _ = await updates.value
            let silent = observer.messages.count
            // 5 × 0.1 s is below the 2 s floor: the re-arm comes 2 s into the silence.
            let rearmed = await observer.first(after: silent, within: hangGuard) { message in
                message.topic == "attune/dev/demo/explain" && (message.text ?? "").contains("\"resubscribes\": 1")
            }
            #expect(rearmed?.text?.contains("its CCCD read 0100 and was written again") == true, "\(rearmed?.text ?? "none")")
            updates = Task { await demo.sendUpdates(interval: .milliseconds(100)) }
            let after = observer.messages.count
            let resumed = await observer.first(after: after) { $0.topic == "attune/dev/demo/heart_rate" }
            #expect(resumed != nil, "the same stream delivers again")
            #expect(!observer.messages.contains { ($0.text ?? "").contains("\"resubscribes\": 2") }, "once per silence")
            updates.cancel()
            await gateway.stop()
        }
    }
}
