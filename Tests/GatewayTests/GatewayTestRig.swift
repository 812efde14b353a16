import Attune
import Foundation
import Gateway
import GatewayConfig
import MQTTClient
import MQTTTestSupport
import Synchronization
import Testing
// The waits every test target shares; re-exported so that each file of the target has them.
@_exported import WaitTestSupport

/// What every gateway test against the real broker stands on: Debian's mosquitto on
/// 127.0.0.1, one memory radio, and the recorders, demo peripherals and gateways the test
/// asks for. ``run(broker:_:)`` tears it all down, also when the test throws, so a test
/// holds only what it checks.
final class GatewayTestRig: Sendable {
    let broker: MosquittoBroker
    let radio: MemoryRadio
    private let owned = Mutex<(recorders: [BrokerRecorder], updates: [Task<Void, Never>])>(([], []))

    private init(broker: MosquittoBroker.Options, advertisingInterval: Duration?) throws {
        radio = advertisingInterval.map { MemoryRadio(advertisingInterval: $0) } ?? MemoryRadio()
        self.broker = try MosquittoBroker.start(options: broker)
    }

    /// Runs `body` on a fresh rig, then cancels its demo updates, closes its recorders and
    /// stops the broker. `advertisingInterval` makes the radio's advertisers repeat, as real
    /// ones do (``MemoryRadio/init(advertisingInterval:)``); nil advertises once.
    ///
    /// In `body`, await a message before `#require`-ing it (`let m = await …; try #require(m)`):
    /// Swift 6.3.1 can give a closure written inside `#require` within this closure the same
    /// symbol as a later closure, and fails the build with "function type mismatch".
    static func run<Value>(broker options: MosquittoBroker.Options = .init(), advertisingInterval: Duration? = nil,
                           _ body: (GatewayTestRig) async throws -> Value) async throws -> Value {
        let rig = try GatewayTestRig(broker: options, advertisingInterval: advertisingInterval)
        do {
            let result = try await body(rig)
            await rig.tearDown()
            return result
        } catch {
            await rig.tearDown()
            throw error
        }
    }

    private func tearDown() async {
        let (recorders, updates) = owned.withLock { o in
            defer { o = ([], []) }
            return (o.recorders, o.updates)
        }
        for task in updates { task.cancel() }
        for recorder in recorders { await recorder.client.close() }
        broker.stop()
    }

    var port: Int { broker.port }
    var url: String { "mqtt://127.0.0.1:\(broker.port)" }

    /// A subscriber on `filter` that records what it gets; closed when the rig ends.
    func recorder(_ filter: String, id: String = "gateway-test-observer") throws -> BrokerRecorder {
        let recorder = try BrokerRecorder(port: broker.port, filter: filter, id: id)
        owned.withLock { $0.recorders.append(recorder) }
        return recorder
    }

    /// Closes `recorder` now (a late subscriber done with), not again when the rig ends.
    func close(_ recorder: BrokerRecorder) async {
        owned.withLock { $0.recorders.removeAll { $0 === recorder } }
        await recorder.client.close()
    }

    /// The demo peripheral on the radio (it takes the radio's next address), notifying every
    /// `interval` until the rig ends; `nil` leaves its updates to the test.
    func demo(notifyingEvery interval: Duration? = .milliseconds(100)) async throws -> DemoPeripheral {
        let demo = try await DemoPeripheral.start(on: .memory(radio))
        if let interval {
            let updates = Task { await demo.sendUpdates(interval: interval) }
            owned.withLock { $0.updates.append(updates) }
        }
        return demo
    }

    /// The broker link a gateway with `configuration` uses: its client id, and with `will`
    /// the gateway's offline will.
    func mqtt(for configuration: GatewayConfiguration, will: Bool = false,
              outboundCapacity: Int? = nil) throws -> MQTTClient {
        var mqtt = try MQTTConfiguration(url: url, clientID: configuration.mqtt.clientID)
        if will { mqtt.will = Gateway.offlineWill(configuration) }
        if let outboundCapacity { mqtt.outboundCapacity = outboundCapacity }
        return try MQTTClient(configuration: mqtt)
    }

    /// A gateway (not started) with the config `text`, each of `adapters` a transport on the
    /// rig's radio.
    func gateway(_ text: String, adapters: [String] = ["memory"], will: Bool = false,
                 store: any Store = InMemoryStore()) throws -> Gateway {
        try gateway(GatewayConfiguration(yaml: Array(text.utf8)), adapters: adapters, will: will, store: store)
    }

    /// A gateway (not started) with `configuration`; `mqtt` defaults to ``mqtt(for:will:outboundCapacity:)``.
    func gateway(_ configuration: GatewayConfiguration, adapters: [String] = ["memory"], will: Bool = false,
                 mqtt: MQTTClient? = nil, store: any Store = InMemoryStore()) throws -> Gateway {
        var transports: [String: BluetoothTransport] = [:]
        for adapter in adapters { transports[adapter] = .memory(radio) }
        return Gateway(configuration: configuration, transports: transports,
                       mqtt: try mqtt ?? self.mqtt(for: configuration, will: will), store: store)
    }

    /// A config on the rig's broker: `adapters` as (transport, max_connections) in order,
    /// `devices` as JSON objects, `mqttExtra` more keys of the mqtt mapping.
    func config(clientID: String, adapters: [(String, Int)] = [("memory", 2)], devices: [String],
                mqttExtra: String = "") -> String {
        let adapterList = adapters.map { "{\"transport\": \"\($0.0)\", \"max_connections\": \($0.1)}" }
        return """
        {"mqtt": {"url": "\(url)", "client_id": "\(clientID)", "base": "attune"\(mqttExtra)},
         "adapters": [\(adapterList.joined(separator: ", "))],
         "devices": [\(devices.joined(separator: ",\n"))]}
        """
    }

    /// A keep device at `address` whose heart rate notifications go to `<device>/heart_rate`;
    /// `extra` adds keys (with a trailing comma).
    static func heartRateDevice(_ name: String, address: String = "C0:00:00:00:00:01", extra: String = "") -> String {
        """
        {"name": "\(name)", "address": "\(address)", "address_type": "random", "connect": "keep", \(extra)
         "gatt": [{"characteristic": "2a37", "notify": true, "topic": "heart_rate", "decode": "heart_rate_measurement"}]}
        """
    }
}

