import Testing
@testable import MQTTClient
import MQTTTestSupport

/// Reconnection as the gateway relies on it: subscriptions come back by themselves, and a
/// broker that refuses the credentials says so in the events.
@Suite struct MQTTReconnectTests {
    @Test("after a broker restart (no persistence) the client reconnects and re-subscribes by itself")
    func resubscribesAfterRestart() async throws {
        let broker = try MosquittoBroker.start()
        let subscriber = try client(port: broker.port, id: "resub-sub")
        try subscriber.subscribe("cmd/#")
        #expect(await subscribed(subscriber, "cmd/#"))
        try broker.restart()
        // The fresh broker knows no subscription: only the client's own re-send brings it back.
        #expect(await subscribed(subscriber, "cmd/#", within: hangGuard))
        let publisher = try client(port: broker.port, id: "resub-pub")
        try publisher.publish(MQTTOutboundMessage(topic: "cmd/a", text: "after", qos: .atLeastOnce))
        let message = await first(subscriber.messages, within: hangGuard) { $0.value != nil }?.value
        #expect(message?.text == "after")
        #expect(subscriber.statistics.connections == 2)
        await subscriber.close()
        await publisher.close()
    }

    @Test("username and password: refused credentials are reported with the broker's reason, good ones connect")
    func credentials() async throws {
        let broker = try MosquittoBroker.start(options: .init(passwords: ["gateway": "s3cret"]))
        let wrong = try client(port: broker.port, id: "cred-wrong") { configuration in
            configuration.username = "gateway"
            configuration.password = "nope"
        }
        let refusal = await first(wrong.events, within: hangGuard) {
            if case .value(.disconnected) = $0 { return true } else { return false }
        }
        guard case .value(.disconnected(let reason))? = refusal else {
            Issue.record("no refusal event")
            return
        }
        #expect(reason.contains("refused"), "\(reason)")
        #expect(!wrong.isConnected)
        await wrong.close()
        let right = try client(port: broker.port, id: "cred-right") { configuration in
            configuration.username = "gateway"
            configuration.password = "s3cret"
        }
        #expect(await connected(right))
        await right.close()
    }

    @Test("a topic MQTT does not allow is refused at publish and subscribe, with the topic named")
    func badTopics() throws {
        let subject = try MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: 1, clientID: "bad"))
        #expect(throws: MQTTError.invalidTopic("a/+/b")) { try subject.publish(MQTTOutboundMessage(topic: "a/+/b", text: "x")) }
        #expect(throws: MQTTError.invalidTopic("")) { try subject.publish(MQTTOutboundMessage(topic: "", text: "x")) }
        #expect(throws: MQTTError.invalidTopic("a/#/b")) { try subject.subscribe("a/#/b") }
        #expect(throws: MQTTError.self) {
            try subject.publish(MQTTOutboundMessage(topic: "a", payload: [], correlationData: Array(repeating: 0, count: 70_000)))
        }
    }
}
