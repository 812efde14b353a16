import ATTPresentation
import Attune
import EventLoop
import Foundation
import Gateway
import GatewayConfig
import Glibc
import MQTTClient
import MQTTTestSupport
import Synchronization
import Transport

/// `gateway.scale.memory`: simulated devices on one memory radio (a PeripheralManager
/// each, with one notifying characteristic), each notifying 10 times a second, through the
/// real ``Gateway`` into Debian's real mosquitto, and out to a separate MQTT subscriber.
///
/// Each value carries the device, its sequence number and the monotonic time the
/// peripheral sent it, so the subscriber measures latency and finds every gap. The anchor
/// of the same run is a plain ``MQTTClient`` publishing the same count of messages of the
/// same size straight to the broker: the ceiling the gateway can reach on this machine.
///
/// `--quick`: 10 s and 16 × 8 devices. `--devices N` overrides the count (at most 16 × 63,
/// which is 16 adapters at 63 connections each).
enum GatewayScaleBenchmark {
    static let name = "gateway.scale.memory"
    static let adapters = 16
    static let perAdapter = 63
    static let rate = 10.0
    static let service = BluetoothUUID(0x180D)
    static let characteristic = BluetoothUUID(0x2A37)

    static func all(filter: String?, quick: Bool, arguments: [String]) async -> [BenchmarkResult] {
        guard filter.map({ name.contains($0) || $0.contains(name) }) ?? true else { return [] }
        var devices = quick ? adapters * 8 : adapters * perAdapter
        if let index = arguments.firstIndex(of: "--devices"), index + 1 < arguments.count,
           let count = Int(arguments[index + 1]), (1...adapters * perAdapter).contains(count) {
            devices = count
        }
        // `--broker-inflight N`: the broker's max_inflight_messages (its default is 20), to
        // measure what a stock broker's Receive Maximum costs.
        var inflight = 1_000
        if let index = arguments.firstIndex(of: "--broker-inflight"), index + 1 < arguments.count,
           let n = Int(arguments[index + 1]), (0...65_535).contains(n) {
            inflight = n
        }
        do {
            return try await run(devices: devices, seconds: quick ? 10 : 60, brokerInflight: inflight)
        } catch {
            return [BenchmarkResult(name: name, opsPerSecond: .nan, allocationsPerOperation: .nan,
                                    extra: [("error", .string("\(error)"))])]
        }
    }

    /// The senders' shared counts and stop flag.
    final class Counters: Sendable {
        let sent = Atomic<Int>(0)
        let refused = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// One simulated device.
    struct Device: Sendable {
        let index: Int
        let manager: PeripheralManager
        let published: PublishedCharacteristic
    }

    static func run(devices count: Int, seconds: Int, brokerInflight: Int) async throws -> [BenchmarkResult] {
        // The broker keeps 1000 QoS 1 messages in flight each way (its default of 20 is
        // also the receive maximum it grants publishers) and queues up to 2 M for a
        // subscriber that falls behind, instead of its default 1000 (beyond which it drops).
        let broker = try MosquittoBroker.start(options: .init(extraLines: [
            "max_inflight_messages \(brokerInflight)", "max_queued_messages 2000000",
        ]))
        defer { broker.stop() }
        // The subscriber: its own event loop thread, a window of 1000 QoS 1 deliveries.
        let subscriberLoop = try KernelEventLoop()
        var subscriberConfiguration = try MQTTConfiguration(url: "mqtt://127.0.0.1:\(broker.port)", clientID: "bench-sub")
        subscriberConfiguration.inboundCapacity = 1 << 20
        subscriberConfiguration.receiveMaximum = 1_000
        let subscriber = try MQTTClient(configuration: subscriberConfiguration, loop: subscriberLoop)
        let log = DeliveryLog(devices: count)
        subscriber.start()
        try subscriber.subscribe("attune/dev/+/value", qos: .atLeastOnce)
        try subscriber.subscribe("anchor/#", qos: .atLeastOnce)
        var events = subscriber.events.makeAsyncIterator()
        var subscribed = 0
        while subscribed < 2, let event = await events.next() {
            if case .value(.subscribed) = event { subscribed += 1 }
        }
        let messages = subscriber.messages
        let consumer = Task.detached {
            for await element in messages {
                switch element {
                case .value(let message): log.received(message.payload)
                case .dropped(let n): log.droppedInbound(n)
                }
            }
        }

        // Peripherals only.
        let rssBefore = residentBytes()
        // A real advertiser repeats every advertising interval. A thousand devices heard at
        // once overflow each scan's bounded stream (1024 reports, drops counted), so the
        // ones dropped are heard at a later event. Each device takes one central, so its
        // advertising pauses once the gateway has it.
        let radio = MemoryRadio(advertisingInterval: .seconds(1))
        var fleet: [Device] = []
        fleet.reserveCapacity(count)
        for index in 0..<count {
            radio.assignNextAddress(address(index))
            let manager = try PeripheralManager(transport: .memory(radio), name: "d\(index)")
            await manager.setMaximumCentrals(1)
            let published = try await manager.add(ServiceDefinition(service, characteristics: [
                CharacteristicDefinition(characteristic, properties: [.notify]),
            ])).characteristics[0]
            try await manager.startAdvertising(localName: "d\(index)", serviceUUIDs: [service])
            fleet.append(Device(index: index, manager: manager, published: published))
        }
        let rssPeripherals = residentBytes()

        // The gateway, its MQTT client, 16 memory adapters on the one radio.
        let configuration = try GatewayConfiguration(yaml: Array(config(port: broker.port, devices: count).utf8))
        var transports: [String: BluetoothTransport] = [:]
        for adapter in 0..<adapters { transports["memory\(adapter)"] = .memory(radio) }
        let mqtt = try MQTTClient(configuration: try MQTTConfiguration(url: "mqtt://127.0.0.1:\(broker.port)",
                                                                       clientID: "attune-bench"))
        let gateway = Gateway(configuration: configuration, transports: transports, mqtt: mqtt)
        let setupStart = ContinuousClock.now
        await gateway.start()
        // Every device subscribed (or 180 s gone): the run drives the subscribed ones.
        var live: [Device] = []
        while ContinuousClock.now - setupStart < .seconds(180) {
            live = []
            for device in fleet where !(await device.manager.subscribedCentrals(for: device.published).isEmpty) {
                live.append(device)
            }
            if live.count == count { break }
            try await Task.sleep(for: .milliseconds(250))
        }
        let setupSeconds = Self.seconds(ContinuousClock.now - setupStart)
        guard !live.isEmpty else { throw Failure(description: "no device was subscribed within 180 s") }
        // Let the set-up's own messages (availability, discovery, explain) pass.
        try await Task.sleep(for: .seconds(2))
        let rssSetUp = residentBytes()
        log.reset()

        // The run: 10 groups, each notifying every 100 ms, 10 ms apart.
        let counters = Counters()
        let groups = 10
        let period = Duration.milliseconds(Int64(1000 / rate))
        let runStart = ContinuousClock.now + .milliseconds(50)
        let usageStart = cpuSeconds(), brokerStart = broker.cpuSeconds
        let senders = (0..<groups).map { group in
            let members = live.enumerated().filter { $0.offset % groups == group }.map(\.element)
            return Task {
                var sequence = [UInt32](repeating: 0, count: members.count)
                var next = runStart + period / groups * group
                var value = [UInt8](repeating: 0, count: 16)
                while !counters.stop.load(ordering: .relaxed) {
                    try? await Task.sleep(until: next, clock: .continuous)
                    for (slot, device) in members.enumerated() {
                        sequence[slot] &+= 1
                        encode(&value, device: device.index, sequence: sequence[slot], time: monotonicNanoseconds())
                        while !(await device.manager.updateValue(value, for: device.published)) {
                            counters.refused.add(1, ordering: .relaxed)
                            await device.manager.readyToUpdateSubscribers()
                        }
                        counters.sent.add(1, ordering: .relaxed)
                    }
                    next += period
                }
            }
        }
        // Steady state: the rate each second, and the largest RSS seen.
        var perSecond: [Int] = []
        var rssPeak = rssSetUp
        var last = 0
        for second in 1...seconds {
            try? await Task.sleep(until: runStart + .seconds(second), clock: .continuous)
            let now = log.count
            perSecond.append(now - last)
            last = now
            rssPeak = max(rssPeak, residentBytes())
        }
        counters.stop.store(true, ordering: .relaxed)
        for sender in senders { await sender.value }
        let wall = Self.seconds(ContinuousClock.now - runStart)
        let cpu = cpuSeconds() - usageStart, brokerCPU = broker.cpuSeconds - brokerStart
        let totalSent = counters.sent.load(ordering: .relaxed)
        // Drain: everything sent arrives, or 20 s pass.
        let drainStart = ContinuousClock.now
        while log.count < totalSent, ContinuousClock.now - drainStart < .seconds(20) {
            try await Task.sleep(for: .milliseconds(50))
        }
        let gatewayRun = log.snapshot()
        let mqttStatistics = mqtt.statistics
        await gateway.stop()

        // Anchor: the same count and size straight to the broker from a plain client.
        let anchor = try await anchorRun(port: broker.port, count: gatewayRun.received, devices: count, log: log)
        await subscriber.close()
        consumer.cancel()

        let devicesLive = Double(live.count)
        let steady = perSecond.dropFirst(min(2, perSecond.count - 1))
        var extra: [(String, JSONValue)] = []
        extra += [("devices", .int(live.count)), ("devices_configured", .int(count)), ("adapters", .int(adapters))]
        extra += [("broker_inflight", .int(brokerInflight)), ("seconds", .int(seconds))]
        extra.append(("setup_s", .double(rounded(setupSeconds))))
        extra += [("sent", .int(totalSent)), ("received", .int(gatewayRun.received))]
        extra += [("lost", .int(max(0, totalSent - gatewayRun.received))), ("gaps", .int(gatewayRun.gaps))]
        extra += [("duplicates", .int(gatewayRun.duplicates)), ("inbound_dropped", .int(gatewayRun.inboundDropped))]
        extra += [("mqtt_dropped", .int(mqttStatistics.droppedMessages)), ("mqtt_rejected", .int(mqttStatistics.rejected))]
        extra += [("link_full", .int(counters.refused.load(ordering: .relaxed))), ("min_msg_per_s", .int(steady.min() ?? 0))]
        extra += [("p50_ms", .double(rounded(gatewayRun.p50))), ("p99_ms", .double(rounded(gatewayRun.p99)))]
        extra += [("max_ms", .double(rounded(gatewayRun.maximum))), ("payload_bytes", .int(gatewayRun.payloadBytes))]
        let peripheralShare = Double(rssPeripherals - rssBefore) / 1024 / Double(count)
        let setUpShare = Double(rssSetUp - rssPeripherals) / 1024 / devicesLive
        let steadyShare = Double(rssPeak - rssPeripherals) / 1024 / devicesLive
        extra.append(("peripherals_kib_per_device", .double(rounded(peripheralShare))))
        extra.append(("gateway_kib_per_device_setup", .double(rounded(setUpShare))))
        extra.append(("gateway_kib_per_device_steady", .double(rounded(steadyShare))))
        extra.append(("process_cpu_percent", .double(rounded(cpu / wall * 100))))
        extra.append(("broker_cpu_percent", .double(rounded(brokerCPU / wall * 100))))
        // CPU per delivered message: steadier than msg/s on a machine others load too.
        extra.append(("process_cpu_us_per_msg", .double(rounded(cpu / Double(max(1, gatewayRun.received)) * 1e6))))
        extra.append(("anchor_msg_per_s", .double(anchor.rate.rounded())))
        let rate = Double(gatewayRun.received) / wall
        var results = [BenchmarkResult(name: name, opsPerSecond: rate, allocationsPerOperation: .nan, extra: extra)]
        results.append(BenchmarkResult(name: name + ".anchor", opsPerSecond: anchor.rate, allocationsPerOperation: .nan, extra: [
            ("messages", .int(anchor.sent)), ("received", .int(anchor.run.received)),
            ("lost", .int(max(0, anchor.sent - anchor.run.received))),
            ("p50_ms", .double(rounded(anchor.run.p50))), ("p99_ms", .double(rounded(anchor.run.p99))),
            ("payload_bytes", .int(anchor.run.payloadBytes)),
            ("process_cpu_us_per_msg", .double(rounded(anchor.cpu / Double(max(1, anchor.run.received)) * 1e6))),
        ]))
        return results
    }

    /// A plain MQTTClient publishing `count` messages shaped like the gateway's, QoS 1,
    /// as fast as its window allows; the subscriber's rate from first to last delivery.
    static func anchorRun(port: Int, count: Int, devices: Int, log: DeliveryLog)
        async throws -> (rate: Double, sent: Int, run: DeliveryLog.Snapshot, cpu: Double) {
        log.reset()
        var configuration = try MQTTConfiguration(url: "mqtt://127.0.0.1:\(port)", clientID: "bench-anchor")
        configuration.outboundCapacity = 10_000
        let publisher = try MQTTClient(configuration: configuration)
        publisher.start()
        while !publisher.isConnected { try await Task.sleep(for: .milliseconds(10)) }
        let total = max(1, count)
        let start = ContinuousClock.now, usage = cpuSeconds()
        var value = [UInt8](repeating: 0, count: 16)
        var sequence = [UInt32](repeating: 0, count: devices)
        for index in 0..<total {
            // Keep within the outbound bound (which would drop the oldest): wait for PUBACKs.
            while publisher.statistics.queued + publisher.statistics.inFlight >= 9_000 {
                try await Task.sleep(for: .microseconds(200))
            }
            let device = index % devices
            sequence[device] &+= 1
            encode(&value, device: device, sequence: sequence[device], time: monotonicNanoseconds())
            let hex = hexString(value, empty: "")
            let text = "{\"value\": \"\(hex)\", \"hex\": \"\(hex)\", \"ts\": \(Date().timeIntervalSince1970), \"via\": \"attune-bench\"}"
            try publisher.publish(MQTTOutboundMessage(topic: "anchor/d\(device)", text: text, qos: .atLeastOnce))
        }
        let drain = ContinuousClock.now
        while log.count < total, ContinuousClock.now - drain < .seconds(20) { try await Task.sleep(for: .milliseconds(5)) }
        let snapshot = log.snapshot()
        let cpu = cpuSeconds() - usage
        let elapsed = seconds((log.lastArrival ?? ContinuousClock.now) - start)
        await publisher.close()
        return (Double(snapshot.received) / max(elapsed, 1e-9), total, snapshot, cpu)
    }

    /// The config: 16 memory adapters of 63 connections, `count` keep devices whose one
    /// notifying characteristic is published as hex on `value`.
    static func config(port: Int, devices count: Int) -> String {
        let adapterList = (0..<adapters).map { "{\"transport\": \"memory\($0)\", \"max_connections\": \(perAdapter)}" }
        let deviceList = (0..<count).map { index in
            "{\"name\": \"d\(index)\", \"address\": \"\(address(index))\", \"address_type\": \"random\", \"connect\": \"keep\", "
                + "\"gatt\": [{\"characteristic\": \"2a37\", \"notify\": true, \"topic\": \"value\", \"decode\": \"hex\"}]}"
        }
        return """
        {"mqtt": {"url": "mqtt://127.0.0.1:\(port)", "client_id": "attune-bench", "base": "attune"},
         "adapters": [\(adapterList.joined(separator: ", "))],
         "devices": [\(deviceList.joined(separator: ",\n"))]}
        """
    }

    /// Device `index`'s random static address.
    static func address(_ index: Int) -> BluetoothAddress {
        BluetoothAddress(rawValue: 0xC1_00_00_00_00_00 | UInt64(index + 1))
    }

    /// The 16-byte value: device (u32 LE), sequence (u32 LE), send time (u64 LE, monotonic ns).
    static func encode(_ value: inout [UInt8], device: Int, sequence: UInt32, time: UInt64) {
        let fields: [(UInt64, Int)] = [(UInt64(truncatingIfNeeded: device), 4), (UInt64(sequence), 4), (time, 8)]
        var offset = 0
        for (field, width) in fields {
            for byte in 0..<width { value[offset + byte] = UInt8(truncatingIfNeeded: field >> (8 * byte)) }
            offset += width
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    static func rounded(_ x: Double) -> Double { (x * 100).rounded() / 100 }
}

func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
}

/// VmRSS of this process, in bytes (0 when /proc cannot be read).
func residentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
          let kib = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
    return kib * 1024
}

/// User plus system CPU seconds of this process so far.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}
