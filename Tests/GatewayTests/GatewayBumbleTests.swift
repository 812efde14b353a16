import Attune
import Foundation
import Gateway
import GatewayConfig
import MQTTClient
import MQTTTestSupport
import Testing

/// The gateway on our userland host (H4 over TCP to an emulated controller) against three
/// Bumble peers nobody here wrote (Scripts/interop/gateway_lab.py): a heart rate monitor
/// that notifies, a battery read by poll, and a device with a writable characteristic,
/// checked through Debian's mosquitto.
@Suite(.serialized)
struct GatewayBumbleTests {
    static let controlUUID = "7A7E0031-5D4C-4F8E-9A64-0C3F1E2B6A10"

    static func config(port: Int, lab: GatewayBumbleLab) -> String {
        """
        {"mqtt": {"url": "mqtt://127.0.0.1:\(port)", "client_id": "attune-bumble", "base": "attune"},
         "adapters": [{"transport": "tcp:127.0.0.1:\(lab.port)", "max_connections": 3}],
         "scan": {"mode": "passive", "interval_ms": 30, "window_ms": 30},
         "devices": [
           {"name": "hr", "address": "\(lab.address("hr"))", "address_type": "random", "connect": "keep",
            "gatt": [{"characteristic": "2a37", "notify": true, "topic": "heart_rate", "decode": "heart_rate_measurement"}]},
           {"name": "battery", "address": "\(lab.address("battery"))", "address_type": "random", "connect": "poll", "every": "3s",
            "gatt": [{"characteristic": "2a19", "read": true, "topic": "battery", "decode": "battery_level"}]},
           {"name": "control", "address": "\(lab.address("control"))", "address_type": "random", "connect": "keep",
            "gatt": [{"characteristic": "\(controlUUID)", "write": true, "topic": "control", "decode": "hex"}]}
         ]}
        """
    }

    /// The `value` of a published JSON value.
    static func value(_ message: MQTTMessage) -> Int? {
        guard let text = message.text,
              let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return nil }
        return (object["value"] as? NSNumber)?.intValue
    }

    @Test("values arrive; set and result work; the heart rate peer vanishes (offline) and returns (online); values resume with one CCCD write per link and none published twice",
          .timeLimit(.minutes(20)))
    func threePeers() async throws {
        let broker = try MosquittoBroker.start()
        defer { broker.stop() }
        let lab = try await GatewayBumbleLab.start()
        defer { lab.stop() }
        let observer = try BrokerRecorder(port: broker.port, filter: "#", id: "bumble-observer")
        let configuration = try GatewayConfiguration(yaml: Array(Self.config(port: broker.port, lab: lab).utf8))
        var mqttConfiguration = try MQTTConfiguration(url: "mqtt://127.0.0.1:\(broker.port)", clientID: "attune-bumble")
        mqttConfiguration.will = Gateway.offlineWill(configuration)
        let adapter = "tcp:127.0.0.1:\(lab.port)"
        let gateway = Gateway(configuration: configuration,
                              transports: [adapter: .h4(try H4Endpoint(parsing: adapter))],
                              mqtt: try MQTTClient(configuration: mqttConfiguration))
        await gateway.start()

        // Values arrive: notified heart rate, polled battery (twice: two poll links), the
        // control device online.
        let heartRate = try #require(await observer.first(within: hangGuard) { $0.topic == "attune/dev/hr/heart_rate" })
        #expect(heartRate.text?.contains("\"unit\": \"bpm\"") == true, "\(heartRate.text ?? "")")
        let firstValue = try #require(Self.value(heartRate), "\(heartRate.text ?? "")")
        // Bumble reports a value once its notify call returns, which can be after the gateway published it.
        let notified = try? await lab.waitFor("notified") { $0.peer == "hr" && $0.int("value") == firstValue }
        #expect(notified != nil, "the value is one Bumble sent: \(heartRate.text ?? "")")
        let battery = try #require(await observer.first(within: hangGuard) { $0.topic == "attune/dev/battery/battery" })
        let firstRead = try await lab.waitFor("read") { $0.peer == "battery" }
        #expect(Self.value(battery) == firstRead.int("value"), "\(battery.text ?? "") after \(firstRead)")
        let secondRead = try await lab.waitFor("read", within: hangGuard) { $0.peer == "battery" && $0.int("value") != firstRead.int("value") }
        let polled = await observer.first(within: hangGuard) { $0.topic == "attune/dev/battery/battery" && Self.value($0) == secondRead.int("value") }
        #expect(polled != nil, "the next poll's value is published")
        #expect(lab.events.filter { $0.name == "connected" && $0.peer == "battery" }.count >= 2, "poll: a link per read")
        let controlOnline = await observer.first(within: hangGuard) {
            $0.topic == "attune/dev/control/availability" && $0.text == "online"
        }
        #expect(controlOnline != nil)

        // /set → Bumble sees the bytes; /result and the MQTT 5 response topic say so.
        try observer.client.publish(MQTTOutboundMessage(topic: "attune/dev/control/control/set", payload: Array("0a0b0c".utf8),
                                                        qos: .atLeastOnce, responseTopic: "reply/bumble",
                                                        correlationData: [0xBE, 0xEF]))
        let written = try await lab.waitFor("written", within: hangGuard) { $0.peer == "control" }
        #expect(written.string("value") == "0a0b0c")
        let result = try #require(await observer.first { $0.topic == "attune/dev/control/control/result" })
        #expect(result.text?.hasPrefix("{\"ok\": true, \"hex\": \"0a0b0c\"") == true, "\(result.text ?? "")")
        let reply = try #require(await observer.first { $0.topic == "reply/bumble" })
        #expect(reply.correlationData == [0xBE, 0xEF])

        // The heart rate peer vanishes: its link ends with a supervision timeout; offline.
        let firstLink = try #require(lab.events.last { $0.name == "connected" && $0.peer == "hr" }?.int("link"))
        let beforeVanish = observer.messages.count
        try await lab.run("vanish hr")
        let offline = await observer.first(after: beforeVanish, within: hangGuard) {
            $0.topic == "attune/dev/hr/availability" && $0.text == "offline"
        }
        #expect(offline != nil, "offline when the peer is gone")

        // It returns (a fresh device at the same address): online, and values flow again.
        let beforeReturn = observer.messages.count
        let labBeforeReturn = lab.events.count
        try await lab.run("return hr")
        let advertising = try await lab.waitFor("advertising", after: labBeforeReturn) { $0.peer == "hr" }
        let online = await observer.first(after: beforeReturn, within: hangGuard) {
            $0.topic == "attune/dev/hr/availability" && $0.text == "online"
        }
        #expect(online != nil, "online again once reconnected")
        let resumed = await observer.first(after: beforeReturn, within: hangGuard) { $0.topic == "attune/dev/hr/heart_rate" }
        let flowing = GatewayBumbleLab.monotonicNow()
        #expect(resumed != nil, "values resume after the return")
        let reconnectMilliseconds = (flowing - advertising.time) * 1000
        print("gateway reconnect (Bumble hr peer returns → first value through MQTT): \(Int(reconnectMilliseconds.rounded())) ms")
        let secondLink = try #require(lab.events.last { $0.name == "connected" && $0.peer == "hr" }?.int("link"))
        #expect(secondLink > firstLink, "a new link")

        // Ten values on the new link, each waited for, then count what Bumble saw.
        let afterResume = observer.messages.count
        var more = 0
        while more < 10 {
            let index = observer.messages.count
            guard await observer.first(after: index, within: hangGuard, where: { $0.topic == "attune/dev/hr/heart_rate" }) != nil else { break }
            more = observer.messages.dropFirst(afterResume).filter { $0.topic == "attune/dev/hr/heart_rate" }.count
        }
        #expect(more >= 10, "values keep flowing on the new link")
        let events = lab.events
        let cccdWrites = events.filter { $0.name == "cccd" && $0.peer == "hr" }
        // Before the vanish: the first device's link; after it, the returned device's.
        let vanishIndex = try #require(events.firstIndex { $0.name == "result" && $0.string("command") == "vanish" })
        let firstDevice = events[..<vanishIndex].filter { $0.name == "cccd" && $0.peer == "hr" }
        let secondDevice = events[vanishIndex...].filter { $0.name == "cccd" && $0.peer == "hr" }
        #expect(firstDevice.filter { $0.int("link") == firstLink && $0.string("value") == "0100" }.count == 1,
                "one CCCD write of 0x0001 on the first link: \(firstDevice.map(\.line))")
        #expect(secondDevice.filter { $0.int("link") == secondLink && $0.string("value") == "0100" }.count == 1,
                "one CCCD write of 0x0001 after the return: \(secondDevice.map(\.line))")
        #expect(cccdWrites.count == 2, "no other CCCD writes: \(cccdWrites.map(\.line))")
        let published = observer.messages.filter { $0.topic == "attune/dev/hr/heart_rate" }.compactMap(Self.value)
        #expect(Set(published).count == published.count, "no value published twice: \(published)")
        // The lab logs a notification after sending it, so the gateway may publish a value
        // before its line is read: wait for the line of the last value published (the lab
        // logs in order, so every earlier one is in by then).
        if let last = published.max() {
            try await lab.waitFor("notified") { $0.peer == "hr" && $0.int("value") == last }
        }
        let sent = Set(lab.events.filter { $0.name == "notified" }.compactMap { $0.int("value") })
        #expect(Set(published).isSubset(of: sent), "every published value is one Bumble notified")

        await gateway.stop()
        // A read is state: a subscriber that comes later finds the last one retained.
        let late = try BrokerRecorder(port: broker.port, filter: "attune/dev/battery/battery", id: "bumble-late")
        let kept = await late.first { $0.topic == "attune/dev/battery/battery" }
        #expect(kept?.retain == true, "the battery value is retained: \(kept?.text ?? "none")")
        await late.client.close()
        await observer.client.close()
    }
}
