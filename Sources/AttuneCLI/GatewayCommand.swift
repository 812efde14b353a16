import Attune
import Dispatch
import Foundation
import Gateway
import GatewayConfig
import MQTTClient
import Synchronization

/// `attune gateway CONFIG [--check] [--explain DEVICE]`: the BLE→MQTT daemon.
enum GatewayCommand: CLICommand {
    static let name = "gateway"
    static let summary = "run the BLE to MQTT gateway from a YAML config (--check validates it, --explain shows a device)"
    static let usage = """
        usage: attune gateway CONFIG [--check] [--explain DEVICE]

        Keeps the devices of CONFIG (YAML, or JSON) connected and subscribed, decodes
        their advertisements and values, and publishes them to the MQTT broker under
        the config's base topic; see Docs/gateway.md and Docs/attune-gateway.example.yaml.
        Runs until SIGTERM or SIGINT (devices are disconnected and published offline);
        SIGHUP reloads CONFIG, keeping the devices that did not change.

          --check            validate CONFIG and print what would run (errors name their
                             path in the file, such as devices[2].gatt[0].characteristic)
          --explain DEVICE   print DEVICE's live state as the running gateway last
                             published it (connection, slot, last error with its HCI
                             reason, backoff, subscriptions, last values)
        An adapter's transport is any --transport form (hci0, tcp:HOST:PORT, user:hci1...);
        `memory` runs the built-in demo peripheral, with no radio.
        """
    static let flags: Set<String> = ["check"]
    static let options: Set<String> = ["explain"]

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.count == 1 else { throw CLIError.usage("give CONFIG") }
        let path = arguments.positionals[0]
        let configuration = try load(path)
        if arguments.flag("check") {
            Output.data(configuration.plan)
            return 0
        }
        if let device = arguments.option("explain") { return try await explain(device, configuration) }
        return try await serve(configuration, path: path)
    }

    static func load(_ path: String) throws(CLIError) -> GatewayConfiguration {
        do {
            return try GatewayConfiguration.load(path: path).resolveSecrets()
        } catch {
            throw .failure(error.report(file: path))
        }
    }

    static func client(_ configuration: GatewayConfiguration, clientID: String? = nil,
                       will: Bool) throws(CLIError) -> MQTTClient {
        let broker = configuration.mqtt
        do {
            var mqtt = try MQTTConfiguration(url: broker.broker.description, clientID: clientID ?? broker.clientID,
                                             tls: MQTTConfiguration.TLS(caFile: broker.caFile, certFile: broker.certFile,
                                                                        keyFile: broker.keyFile))
            mqtt.username = broker.username
            mqtt.password = broker.password?.value
            mqtt.keepalive = Int(broker.keepalive.components.seconds)
            if will { mqtt.will = Gateway.offlineWill(configuration) }
            return try MQTTClient(configuration: mqtt)
        } catch {
            throw .failure("mqtt: \(error)")
        }
    }

    private static func serve(_ configuration: GatewayConfiguration, path: String) async throws(CLIError) -> Int32 {
        var transports: [String: BluetoothTransport] = [:]
        var demo: DemoSession?
        for adapter in configuration.adapters {
            if let transport = try TransportOption.parse(adapter.transport) {
                transports[adapter.transport] = transport
            } else {
                let session = try await DemoSession.start(snoopPath: nil)
                demo = session
                transports[adapter.transport] = .memory(session.radio)
                Output.status("memory transport: demo peripheral \"\(DemoPeripheral.localName)\" at \(DemoSession.demoAddress)")
            }
        }
        let gateway = Gateway(configuration: configuration, transports: transports, mqtt: try client(configuration, will: true),
                              store: BondStore.openFile())
        GatewayShutdown.register(gateway)
        await gateway.start()
        Output.status("gateway \(configuration.mqtt.clientID): \(configuration.devices.count) devices, "
                      + "\(configuration.adapters.count) adapters, broker \(configuration.mqtt.broker)")
        let reloads = ReloadSignal.start()
        // Until a signal cancels the command (main.swift's SignalTrap stops the gateway first).
        for await _ in reloads {
            do {
                let changes = await gateway.reload(try load(path))
                Output.status("reloaded \(path): \(changes.added.count) added, \(changes.removed.count) removed, "
                              + "\(changes.changed.count) changed, \(changes.unchanged.count) unchanged"
                              + (changes.mqttChanged || changes.adaptersChanged ? "; mqtt and adapter changes need a restart" : ""))
            } catch {
                Output.status("reload of \(path) refused, the running config stays: \(error)")
            }
        }
        _ = demo
        return 0
    }

    private static func explain(_ device: String, _ configuration: GatewayConfiguration) async throws(CLIError) -> Int32 {
        guard configuration.devices.contains(where: { $0.name == device }) else {
            throw .failure("no device \(device) in the config; it has \(configuration.devices.map(\.name).joined(separator: ", "))")
        }
        let topics = GatewayTopics(base: configuration.mqtt.base, clientID: configuration.mqtt.clientID)
        let mqtt = try client(configuration, clientID: configuration.mqtt.clientID + "-explain-\(getpid())", will: false)
        mqtt.start()
        do { try mqtt.subscribe(topics.explain(device)) } catch { throw .failure("mqtt: \(error)") }
        let found = await withTaskGroup(of: String?.self) { group in
            group.addTask {
                for await element in mqtt.messages {
                    if case .value(let message) = element, message.topic == topics.explain(device) { return message.text }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        await mqtt.close()
        guard let found else {
            throw .failure("the broker holds no state for \(device) at \(topics.explain(device)): is the gateway running?")
        }
        Output.data(found)
        return 0
    }
}

/// The gateway's clean stop on SIGTERM and SIGINT: every device disconnected and
/// published offline, then the gateway's status.
enum GatewayShutdown {
    static func register(_ gateway: Gateway) {
        Shutdown.register { await gateway.stop() }
    }
}

/// SIGHUP, as a stream of reload requests.
enum ReloadSignal {
    static func start() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        signal(SIGHUP, SIG_IGN)
        // Made and kept inside the lock, for the life of the process, as SignalTrap keeps its sources.
        sources.withLock { kept in
            let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: DispatchQueue(label: "attune.reload"))
            source.setEventHandler { continuation.yield() }
            source.resume()
            kept.append(source)
        }
        return stream
    }

    private static let sources = Mutex<[any DispatchSourceSignal]>([])
}
