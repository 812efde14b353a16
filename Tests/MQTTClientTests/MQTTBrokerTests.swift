import Foundation
import Synchronization
import Testing
@testable import MQTTClient
import MQTTTestSupport

/// MQTTClient against Debian's real mosquitto on 127.0.0.1 and a random port.
@Suite struct MQTTBrokerTests {
    @Test("QoS 1 publish reaches a subscriber; a retained message reaches a later subscriber flagged retained")
    func roundTripQoS1Retain() async throws {
        let broker = try MosquittoBroker.start()
        let subscriber = try client(port: broker.port, id: "rt-sub")
        let publisher = try client(port: broker.port, id: "rt-pub")
        try subscriber.subscribe("rt/#", qos: .atLeastOnce)
        #expect(await subscribed(subscriber, "rt/#"))
        try publisher.publish(MQTTOutboundMessage(topic: "rt/a", text: "hello", qos: .atLeastOnce, retain: true))
        let live = await first(subscriber.messages, within: hangGuard) { $0.value?.topic == "rt/a" }?.value
        #expect(live?.text == "hello")
        #expect(live?.qos == .atLeastOnce)
        #expect(live?.retain == false)
        let late = try client(port: broker.port, id: "rt-late")
        try late.subscribe("rt/#")
        let retained = await first(late.messages, within: hangGuard) { $0.value?.topic == "rt/a" }?.value
        #expect(retained?.text == "hello")
        #expect(retained?.retain == true)
        #expect(publisher.statistics.acknowledged == 1)
        for each in [subscriber, publisher, late] { await each.close() }
    }

    @Test("MQTT 5 response topic, correlation data and message expiry arrive with the message")
    func propertiesRoundTrip() async throws {
        let broker = try MosquittoBroker.start()
        let responder = try client(port: broker.port, id: "props-sub")
        let requester = try client(port: broker.port, id: "props-pub")
        try responder.subscribe("dev/x/set")
        #expect(await subscribed(responder, "dev/x/set"))
        try requester.publish(MQTTOutboundMessage(topic: "dev/x/set", payload: [0x01, 0x02], qos: .atLeastOnce,
                                                  messageExpiry: 60, responseTopic: "dev/x/set/result",
                                                  correlationData: [0xCA, 0xFE, 0x00, 0x01]))
        let request = await first(responder.messages, within: hangGuard) { $0.value != nil }?.value
        #expect(request?.payload == [0x01, 0x02])
        #expect(request?.responseTopic == "dev/x/set/result")
        #expect(request?.correlationData == [0xCA, 0xFE, 0x00, 0x01])
        #expect(request.flatMap(\.messageExpiry).map { $0 > 0 && $0 <= 60 } == true)
        // A plain message carries none of them.
        try requester.publish(MQTTOutboundMessage(topic: "dev/x/set", text: "plain", qos: .atLeastOnce))
        let plain = await first(responder.messages, within: hangGuard) { $0.value != nil }?.value
        #expect(plain?.text == "plain" && plain?.responseTopic == nil && plain?.correlationData == nil && plain?.messageExpiry == nil)
        await responder.close()
        await requester.close()
    }

    @Test("the will (retained, with message expiry) is published when the connection dies without DISCONNECT")
    func willOnAbruptClose() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try client(port: broker.port, id: "will-observer")
        try observer.subscribe("gw/+/status")
        #expect(await subscribed(observer, "gw/+/status"))
        let dying = try client(port: broker.port, id: "will-dying") { configuration in
            configuration.will = .init(topic: "gw/kitchen/status", payload: Array("offline".utf8), qos: .atLeastOnce,
                                       retain: true, messageExpiry: 3_600)
        }
        #expect(await connected(dying))
        try dying.publish(MQTTOutboundMessage(topic: "gw/kitchen/status", text: "online", qos: .atLeastOnce, retain: true))
        #expect(await first(observer.messages, within: hangGuard) { $0.value?.text == "online" } != nil)
        await dying.closeWithoutDisconnect()
        let will = await first(observer.messages, within: hangGuard) { $0.value?.topic == "gw/kitchen/status" }?.value
        #expect(will?.text == "offline")
        #expect(will.flatMap(\.messageExpiry).map { $0 > 3_500 && $0 <= 3_600 } == true)
        await observer.close()
    }

    @Test("broker restart while publishing 1,000 QoS 1 messages: each is delivered after reconnect or counted as dropped")
    func brokerRestartLosesNothingUncounted() async throws {
        let broker = try MosquittoBroker.start(options: .init(persistence: true, extraLines: ["max_queued_messages 0"]))
        let subscriber = try MosquittoSubscriber(port: broker.port, topic: "load/#", clientID: "restart-sub")
        #expect(await subscriber.waitSubscribed(timeout: hangGuard))
        let publisher = try client(port: broker.port, id: "restart-pub")
        #expect(await connected(publisher))
        func publish(_ range: Range<Int>) throws {
            for index in range {
                try publisher.publish(MQTTOutboundMessage(topic: "load/\(index % 7)", text: "m\(index)", qos: .atLeastOnce))
            }
        }
        try publish(0..<300)
        broker.stop()  // mid-flight: some handed over, some acknowledged, some still queued
        #expect(await first(publisher.events, within: hangGuard) {
            if case .value(.disconnected) = $0 { return true } else { return false }
        } != nil)
        try publish(300..<700)
        try broker.restart()
        try publish(700..<1_000)
        #expect(await connected(publisher, within: hangGuard))
        let dropped = publisher.statistics.droppedMessages
        let complete = await subscriber.waitFor(timeout: hangGuard) { lines in
            Set(lines.filter { $0.hasPrefix("MSG ") }).count + dropped >= 1_000
        }
        let unique = Set(subscriber.payloads)
        #expect(complete, "delivered \(unique.count) + dropped \(dropped); \(publisher.statistics)")
        #expect(unique.count + dropped == 1_000)
        #expect(unique.isSubset(of: Set((0..<1_000).map { "m\($0)" })))
        #expect(publisher.statistics.connections == 2)
        await publisher.close()
    }

    @Test("capacity 10, 25 publishes while the broker is down: the 10 newest are delivered in order, 15 counted")
    func queueBoundDropsOldest() async throws {
        let broker = try MosquittoBroker.start(options: .init(persistence: true))
        let subscriber = try MosquittoSubscriber(port: broker.port, topic: "bound/#", clientID: "bound-sub")
        #expect(await subscriber.waitSubscribed(timeout: hangGuard))
        broker.stop()
        var configuration = try MQTTConfiguration(url: "mqtt://127.0.0.1:\(broker.port)", clientID: "bound-pub")
        configuration.outboundCapacity = 10
        let publisher = try MQTTClient(configuration: configuration)
        publisher.start()
        for index in 0..<25 {
            try publisher.publish(MQTTOutboundMessage(topic: "bound/x", text: "b\(index)", qos: .atLeastOnce))
        }
        #expect(publisher.statistics.droppedMessages == 15)
        #expect(publisher.statistics.queued == 10)
        try broker.restart()
        #expect(await subscriber.waitFor(timeout: hangGuard) { $0.filter { $0.hasPrefix("MSG ") }.count >= 10 })
        #expect(subscriber.payloads == (15..<25).map { "b\($0)" })
        #expect(publisher.statistics.acknowledged == 10)
        await publisher.close()
    }

    /// Set in the child process that spins its own pool (see ``keepaliveSurvivesBusyPool()``).
    static let poolHogChild = "ATTUNE_MQTT_POOL_HOG_CHILD"

    @Test("keepalive goes on while every cooperative thread spins: no disconnection past 1.5 × keepalive")
    func keepaliveSurvivesBusyPool() async throws {
        guard isChildTestRun(Self.poolHogChild) else {
            // Spinning this process's pool for 8.5 s would stall every other suite's timers
            // (a connect timeout read 16 s late): the spin runs in a child process of this
            // same test binary, with a pool of its own, and its verdict is the exit status.
            let child = try await ChildTestRun.run(filter: "keepaliveSurvivesBusyPool", marker: Self.poolHogChild)
            #expect(child.status == 0, "the child that spun its pool failed (exit \(child.status)): \(child.output.suffix(2000))")
            #expect(child.ranOneTest, "\(child.output.suffix(2000))")
            return
        }
        let broker = try MosquittoBroker.start()
        let watched = try client(port: broker.port, id: "keepalive") { $0.keepalive = 5 }
        #expect(await connected(watched))
        // The broker drops a silent client after 1.5 × 5 s; spin the whole pool past that.
        let spin = Duration.seconds(8.5)
        let threads = max(2, ProcessInfo.processInfo.activeProcessorCount)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<threads {
                group.addTask {
                    let clock = ContinuousClock()
                    let end = clock.now + spin
                    var sink = 0
                    while clock.now < end { sink &+= 1 }
                    _ = sink
                }
            }
        }
        // Absence by order: the SUBACK of a subscription made after the spin comes after any
        // disconnection the spin caused, so the first of the two says which happened.
        try watched.subscribe("probe/#")
        let next = await first(watched.events, within: hangGuard) {
            switch $0 {
            case .value(.disconnected), .value(.subscribed("probe/#", _)): return true
            default: return false
            }
        }
        guard case .value(.subscribed)? = next else {
            Issue.record("\(String(describing: next)) before the probe's SUBACK; \(broker.log)")
            return
        }
        #expect(watched.isConnected)
        #expect(watched.statistics.connections == 1)
        await watched.close()
    }
}
