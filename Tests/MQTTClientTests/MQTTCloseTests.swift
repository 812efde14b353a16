import Testing
@testable import MQTTClient
import MQTTTestSupport

/// `close()` delivers what was published before it, or counts what it could not.
@Suite struct MQTTCloseTests {
    @Test("close right after 3,000 QoS 1 publishes: all 3,000 arrive in order before DISCONNECT, none counted lost, no will")
    func closeDeliversWhatWasQueued() async throws {
        let broker = try MosquittoBroker.start()
        let subscriber = try MosquittoSubscriber(port: broker.port, topic: "drain/#", clientID: "drain-sub")
        #expect(await subscriber.waitSubscribed(timeout: hangGuard))
        let publisher = try client(port: broker.port, id: "drain-pub") { configuration in
            // The limit is not what this test is about (closeDrainHasALimit is): a loaded
            // machine acknowledged 456 of the 3,000 within the default 5 s.
            configuration.closeDrainLimit = hangGuard
            configuration.will = .init(topic: "drain/will", payload: Array("gone".utf8), qos: .atLeastOnce, retain: false)
        }
        #expect(await connected(publisher))
        // The window hands 512 to libmosquitto at once: most of these wait in the queue.
        for index in 0..<3_000 {
            try publisher.publish(MQTTOutboundMessage(topic: "drain/x", text: "d\(index)", qos: .atLeastOnce))
        }
        await publisher.close()
        let statistics = publisher.statistics
        #expect(statistics.acknowledged == 3_000, "\(statistics)")
        #expect(statistics.undeliveredAtClose == 0 && statistics.queued == 0 && statistics.inFlight == 0)
        #expect(await subscriber.waitFor(timeout: hangGuard) { $0.filter { $0.hasPrefix("MSG ") }.count >= 3_000 })
        #expect(subscriber.payloads == (0..<3_000).map { "d\($0)" })
        // A later message from another client comes after: the will was never published.
        let last = try client(port: broker.port, id: "drain-last")
        #expect(await connected(last))
        try last.publish(MQTTOutboundMessage(topic: "drain/end", text: "end", qos: .atLeastOnce))
        #expect(await subscriber.waitFor(timeout: hangGuard) { $0.contains { $0.hasSuffix("end") } })
        #expect(!subscriber.payloads.contains("gone"), "\(subscriber.payloads.suffix(3))")
        await last.close()
        #expect(throws: MQTTError.closed) {
            try publisher.publish(MQTTOutboundMessage(topic: "drain/x", text: "late", qos: .atLeastOnce))
        }
    }

    @Test("a broker that stops answering: close ends at its drain limit and counts the 100 unacknowledged")
    func closeDrainHasALimit() async throws {
        let broker = try MosquittoBroker.start()
        let publisher = try client(port: broker.port, id: "frozen-pub") { $0.closeDrainLimit = .seconds(1) }
        #expect(await connected(publisher))
        broker.freeze()
        defer { broker.thaw() }
        for index in 0..<100 {
            try publisher.publish(MQTTOutboundMessage(topic: "frozen/x", text: "f\(index)", qos: .atLeastOnce))
        }
        await publisher.close()
        #expect(publisher.statistics.undeliveredAtClose == 100, "\(publisher.statistics)")
        #expect(publisher.statistics.acknowledged == 0)
        let last = await first(publisher.events, within: hangGuard) { element in
            if case .value(.disconnected(let reason)) = element { return reason.hasPrefix("closed") } else { return false }
        }
        #expect(last?.value == .disconnected(reason: "closed; 100 messages not delivered or not acknowledged"))
    }

    @Test("close with the broker away: nothing can be delivered, and the 5 queued are counted")
    func closeWithoutBrokerCounts() async throws {
        let broker = try MosquittoBroker.start()
        broker.stop()
        let publisher = try client(port: broker.port, id: "away-pub")
        for index in 0..<5 {
            try publisher.publish(MQTTOutboundMessage(topic: "away/x", text: "a\(index)", qos: .atLeastOnce))
        }
        await publisher.close()
        #expect(publisher.statistics.undeliveredAtClose == 5, "\(publisher.statistics)")
        #expect(publisher.statistics.droppedMessages == 0)
    }
}
