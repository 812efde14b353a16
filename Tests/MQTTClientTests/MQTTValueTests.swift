import Testing
@testable import MQTTClient

/// The parts that need no broker: URLs, the bounded streams, the queue ring, the backoff.
@Suite struct MQTTValueTests {
    @Test("mqtt:// and mqtts:// URLs give host, port and TLS; hostile ones give a reason, never a crash")
    func urls() throws {
        let plain = try MQTTConfiguration(url: "mqtt://127.0.0.1:1884", clientID: "a")
        #expect(plain.host == "127.0.0.1" && plain.port == 1884 && plain.tls == nil)
        let secure = try MQTTConfiguration(url: "mqtts://broker.local", clientID: "a", tls: .init(caFile: "/ca.pem"))
        #expect(secure.port == 8883 && secure.tls?.caFile == "/ca.pem")
        let six = try MQTTConfiguration(url: "mqtt://[::1]:99", clientID: "a")
        #expect(six.host == "::1" && six.port == 99)
        for bad in ["http://x", "mqtt://", "mqtt://h:0", "mqtt://h:65536", "mqtt://h:99999999999999999999",
                    "mqtt://h:-1", "mqtt://u:p@h", "mqtt://h/path", "mqtt://[::1", "mqtt://[::1]x", "mqtt://h:"] {
            #expect(throws: MQTTError.self, "\(bad)") { try MQTTConfiguration(url: bad, clientID: "a") }
        }
    }

    @Test("the QoS 1 window is libmosquitto's send maximum (never its default 20 for a large queue, never past 512); receive maximum 1...65535")
    func windows() throws {
        var configuration = try MQTTConfiguration(url: "mqtt://127.0.0.1", clientID: "a")
        #expect(MQTTClient.window(configuration) == 512, "10,000 queued: 512 in flight")
        configuration.outboundCapacity = 10
        #expect(MQTTClient.window(configuration) == 2)
        configuration.outboundCapacity = 1_000
        #expect(MQTTClient.window(configuration) == 250, "a quarter of the bound below 2,048")
        configuration.outboundCapacity = 0
        #expect(MQTTClient.window(configuration) == 1)
        for bad in [0, -1, 65_536] {
            configuration.receiveMaximum = bad
            #expect(throws: MQTTError.self, "\(bad)") { try MQTTClient(configuration: configuration) }
        }
        configuration.receiveMaximum = 1_000
        _ = try MQTTClient(configuration: configuration)
    }

    @Test("a full stream drops the newest and says how many, in the place of the gap")
    func streamReportsDrops() async {
        let stream = MQTTStream<Int>(capacity: 2)
        for value in 1...5 { stream.buffer.offer(value) }
        stream.buffer.offer(6)  // still full: dropped too
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == .value(1))
        #expect(await iterator.next() == .value(2))
        #expect(await iterator.next() == .dropped(count: 4))
        stream.buffer.offer(7)
        #expect(await iterator.next() == .value(7))
        stream.buffer.finish()
        #expect(await iterator.next() == nil)
        #expect(stream.buffer.dropped == 4)
    }

    @Test("the ring keeps order across growth and put-backs")
    func ring() {
        var ring = OutboundRing<Int>()
        for value in 0..<40 { ring.append(value) }
        for _ in 0..<30 { _ = ring.popFirst() }
        for value in 40..<60 { ring.append(value) }
        ring.prepend(29)
        var out: [Int] = []
        while let value = ring.popFirst() { out.append(value) }
        #expect(out == Array(29..<60))
    }

    @Test("backoff: 0.25 s doubling to 30 s, reset on connect")
    func backoff() {
        // The client counts attempts since the last accepted connection (0 again on
        // connect) and asks the one Backoff for each wait; no jitter, whatever the source.
        let backoff = MQTTClient.reconnectBackoff
        let delays = (0..<10).map { backoff.delay(attempt: $0, random: 0.9) }
        #expect(delays.prefix(4) == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2)])
        #expect(delays.last == .seconds(30))
        #expect(backoff.delay(attempt: 0, random: 0.5) == .milliseconds(250))
    }
}
