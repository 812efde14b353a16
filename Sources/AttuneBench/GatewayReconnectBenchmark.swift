import Attune
import Foundation
import Gateway
import GatewayConfig
import MQTTClient
import MQTTTestSupport

/// `gateway.reconnect.bumble`: how long after a peer comes back values flow again through
/// the gateway. The peer is Bumble's heart rate monitor (Scripts/interop/gateway_lab.py) on
/// the userland host over H4/TCP; the subscriber is on Debian's mosquitto on this machine.
/// Each cycle the peer vanishes (its link ends with a supervision timeout), returns as a
/// fresh device, and the time from its advertising restart to the first value a
/// subscriber receives is one sample.
///
/// The anchor, same run, same peer: a plain `CentralManager` connecting, discovering and
/// subscribing after the peer returns, to its first notification (no gateway, no MQTT):
/// what the link itself costs, so the rest is the gateway's scheduling and publishing.
///
/// It needs Bumble's venv and /usr/sbin/mosquitto (Scripts/setup.sh makes both), so it runs
/// only when `--filter` names it: `attune-bench --filter gateway.reconnect`.
enum GatewayReconnectBenchmark {
    static let name = "gateway.reconnect.bumble"

    static func all(filter: String?, quick: Bool) async -> [BenchmarkResult] {
        guard let filter, name.contains(filter), filter.hasPrefix("gateway") else { return [] }
        do {
            return [try await measure(cycles: quick ? 3 : 7)]
        } catch {
            return [BenchmarkResult(name: name, opsPerSecond: .nan, allocationsPerOperation: .nan,
                                    extra: [("error", .string("\(error)"))])]
        }
    }

    static func measure(cycles: Int) async throws -> BenchmarkResult {
        let broker = try MosquittoBroker.start()
        defer { broker.stop() }
        // A lab each: an emulated controller keeps its state across hosts (HCI Reset does nothing).
        let anchorLab = try await GatewayBumbleLab.start(notifyInterval: .milliseconds(50))
        let anchor: [Double]
        do {
            anchor = try await anchorSamples(cycles: cycles, lab: anchorLab,
                                             transport: .h4(try H4Endpoint(parsing: "tcp:127.0.0.1:\(anchorLab.port)")))
            anchorLab.stop()
        } catch {
            anchorLab.stop()
            throw error
        }
        let lab = try await GatewayBumbleLab.start(notifyInterval: .milliseconds(50))
        defer { lab.stop() }
        let adapter = "tcp:127.0.0.1:\(lab.port)"
        let (samples, connects) = try await gatewaySamples(cycles: cycles, broker: broker, lab: lab, adapter: adapter,
                                                           transport: .h4(try H4Endpoint(parsing: adapter)))
        let median = Self.median(samples), anchorMedian = Self.median(anchor)
        return BenchmarkResult(
            name: name, opsPerSecond: 1000 / median, allocationsPerOperation: .nan,
            extra: [("unit", .string("reconnects")), ("cycles", .int(samples.count)),
                    ("median_ms", .double(round1(median))), ("max_ms", .double(round1(samples.max() ?? .nan))),
                    ("min_ms", .double(round1(samples.min() ?? .nan))),
                    ("connected_median_ms", .double(round1(Self.median(connects)))),
                    ("anchor_central_median_ms", .double(round1(anchorMedian))),
                    ("ratio_to_anchor", .double((median / anchorMedian * 100).rounded() / 100))])
    }

    /// The gateway keeps `hr` connected; each cycle measures advertising restart → first
    /// MQTT value at the subscriber.
    static func gatewaySamples(cycles: Int, broker: MosquittoBroker, lab: GatewayBumbleLab, adapter: String,
                               transport: BluetoothTransport) async throws -> (total: [Double], connect: [Double]) {
        let yaml = """
        {"mqtt": {"url": "mqtt://127.0.0.1:\(broker.port)", "client_id": "attune-bench", "base": "attune"},
         "adapters": [{"transport": "\(adapter)", "max_connections": 1}],
         "scan": {"mode": "passive", "interval_ms": 30, "window_ms": 30},
         "devices": [{"name": "hr", "address": "\(lab.address("hr"))", "address_type": "random", "connect": "keep",
                      "gatt": [{"characteristic": "2a37", "notify": true, "topic": "heart_rate", "decode": "heart_rate_measurement"}]}]}
        """
        let configuration = try GatewayConfiguration(yaml: Array(yaml.utf8))
        let observer = try BrokerRecorder(port: broker.port, filter: "attune/dev/hr/#", id: "bench-observer")
        defer { Task { await observer.client.close() } }
        let mqtt = try MQTTClient(configuration: try MQTTConfiguration(url: "mqtt://127.0.0.1:\(broker.port)", clientID: "attune-bench"))
        let gateway = Gateway(configuration: configuration, transports: [adapter: transport], mqtt: mqtt)
        await gateway.start()
        guard await observer.first(within: .seconds(120), where: { $0.topic == "attune/dev/hr/heart_rate" }) != nil else {
            await gateway.stop()
            throw GatewayBumbleLab.Failure(description: "no first value through the gateway")
        }
        var samples: [Double] = [], connects: [Double] = []
        for _ in 0..<cycles {
            let beforeVanish = observer.messages.count
            try await lab.run("vanish hr")
            guard await observer.first(after: beforeVanish, within: .seconds(30), where: {
                $0.topic == "attune/dev/hr/availability" && $0.text == "offline"
            }) != nil else { throw GatewayBumbleLab.Failure(description: "the gateway never saw the peer go") }
            let before = observer.messages.count, labBefore = lab.events.count
            try await lab.run("return hr")
            let advertising = try await lab.waitFor("advertising", after: labBefore) { $0.peer == "hr" }
            guard await observer.first(after: before, within: .seconds(60), where: { $0.topic == "attune/dev/hr/heart_rate" }) != nil else {
                throw GatewayBumbleLab.Failure(description: "values did not resume through the gateway")
            }
            samples.append((GatewayBumbleLab.monotonicNow() - advertising.time) * 1000)
            // Where the time went: the link is up on Bumble's side (advertising → connected).
            let connected = try await lab.waitFor("connected", after: labBefore) { $0.peer == "hr" }
            connects.append((connected.time - advertising.time) * 1000)
        }
        await gateway.stop()
        return (samples, connects)
    }

    /// The same cycles with a plain central on the same controller: connect (which waits
    /// for the next advertisement), discover, subscribe, first notification.
    static func anchorSamples(cycles: Int, lab: GatewayBumbleLab, transport: BluetoothTransport) async throws -> [Double] {
        guard let address = BluetoothAddress(lab.address("hr")) else {
            throw GatewayBumbleLab.Failure(description: "bad address \(lab.address("hr"))")
        }
        let central = CentralManager(transport: transport)
        for await state in central.stateUpdates where state == .poweredOn || state == .unsupported { break }
        var samples: [Double] = []
        for _ in 0..<cycles {
            try await lab.run("vanish hr")
            let labBefore = lab.events.count
            try await lab.run("return hr")
            let advertising = try await lab.waitFor("advertising", after: labBefore) { $0.peer == "hr" }
            let peripheral = central.peripheral(address: address, type: .random)
            try await central.connect(peripheral, timeout: .seconds(30))
            var measurement: Characteristic?
            for service in try await peripheral.discoverServices([BluetoothUUID(0x180D)]) {
                measurement = try await peripheral.discoverCharacteristics([BluetoothUUID(0x2A37)], for: service).first
            }
            guard let measurement else { throw GatewayBumbleLab.Failure(description: "2A37 not found") }
            let values = await peripheral.notifications(for: measurement)
            try await peripheral.setNotifyValue(true, for: measurement)
            for try await _ in values { break }
            samples.append((GatewayBumbleLab.monotonicNow() - advertising.time) * 1000)
            await central.cancelConnection(peripheral)
        }
        return samples
    }

    static func median(_ samples: [Double]) -> Double {
        guard !samples.isEmpty else { return .nan }
        let sorted = samples.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func round1(_ value: Double) -> Double { (value * 10).rounded() / 10 }
}
