import Attune
import BluetoothCore
import Foundation
import GatewayConfig
import GatewayCore
import MQTTClient
import SensorDecoding

/// `attune gateway`: keeps the configured devices connected and subscribed, decodes their
/// advertisements and values, and publishes them to MQTT, on the public API alone.
///
/// One actor makes every decision (GatewayCore's machines: the connection scheduler per
/// adapter, availability); values take the short path: each notification stream's task
/// decodes and publishes itself, and the MQTT client's own loop thread carries the
/// broker link, so Bluetooth work never holds up the keepalive.
public actor Gateway {
    /// The running config (a reload replaces its devices).
    public private(set) var configuration: GatewayConfiguration
    public let topics: GatewayTopics
    let mqtt: MQTTClient
    let clock = GatewayClock()
    let values = ValueBook()

    struct AdapterRuntime {
        var name: String
        var central: CentralManager
        var scheduler: ConnectionScheduler
        var health: ScanHealth
        var scan: Task<Void, Never>?
        var scanning = false
        var resets = 0
        var nextHandle: UInt16 = 1
    }

    var adapters: [AdapterRuntime] = []
    var devices: [String: DeviceRuntime] = [:]
    /// Configured devices by the address they are known at (their fixed address, or the
    /// last private address that resolved to their IRK).
    var byAddress: [BluetoothAddress: String] = [:]
    var availability = AvailabilityTracker()
    /// Subscriptions as desired state: written on every link, re-armed after a silence.
    var watchdog = SubscriptionWatchdog()
    let arrivals = NotificationArrivals()
    var timer: Task<Void, Never>?
    var armed: MonotonicTime?
    var housekeeping: Task<Void, Never>?
    var listener: Task<Void, Never>?
    var stopped = false
    /// Unknown advertisers published (with `discover_unknown`), and the last time each was.
    var unknownSeen: [BluetoothAddress: MonotonicTime] = [:]

    /// - Parameters:
    ///   - configuration: the loaded config (its secrets resolved).
    ///   - transports: each adapter's `transport` string made into a transport (the CLI
    ///     parses them as `--transport` does; tests pass memory radios).
    ///   - mqtt: the broker link, not started yet; its will should be ``offlineWill(_:)``.
    ///   - store: where bonds and GATT caches are kept.
    public init(configuration: GatewayConfiguration, transports: [String: BluetoothTransport], mqtt: MQTTClient,
                store: any Store = InMemoryStore()) {
        self.configuration = configuration
        self.topics = GatewayTopics(base: configuration.mqtt.base, clientID: configuration.mqtt.clientID)
        self.mqtt = mqtt
        var seed = SystemRandomNumberGenerator()
        for adapter in configuration.adapters {
            guard let transport = transports[adapter.transport] else { continue }
            let central = CentralManager(transport: transport, store: store)
            var scheduling = SchedulerConfiguration()
            scheduling.maxConnections = adapter.maxConnections
            adapters.append(AdapterRuntime(
                name: adapter.transport, central: central,
                scheduler: ConnectionScheduler(configuration: scheduling, random: SplitMix64(seed: seed.next())),
                health: ScanHealth(adapter: AdapterID(adapter.transport))))
        }
    }

    /// The last will for `configuration`: the status topic says `offline`, retained.
    public static func offlineWill(_ configuration: GatewayConfiguration) -> MQTTConfiguration.Will {
        let topics = GatewayTopics(base: configuration.mqtt.base, clientID: configuration.mqtt.clientID)
        return MQTTConfiguration.Will(topic: topics.status, payload: Array("offline".utf8), qos: .atLeastOnce, retain: true)
    }

    /// Starts everything: the broker link, status `online`, the `/set` subscription, Home
    /// Assistant discovery, each adapter's scan, and the devices' schedules.
    public func start() async {
        mqtt.start()
        publish(topics.status, "online", retain: true)
        try? mqtt.subscribe(topics.setFilter)
        if let discovery = configuration.mqtt.discovery {
            try? mqtt.subscribe("\(discovery.prefix)/status")
            publishDiscovery()
        }
        listener = Task { [weak self] in await self?.listen() }
        let now = clock.now
        for device in configuration.devices { add(device, at: now) }
        for index in adapters.indices { startScan(index) }
        housekeeping = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                await self?.publishChanges()
            }
        }
        rearm()
    }

    /// Disconnects every device, publishes `offline` for them and the gateway, and
    /// closes the broker link.
    public func stop() async {
        guard !stopped else { return }
        stopped = true
        timer?.cancel()
        housekeeping?.cancel()
        for index in adapters.indices {
            adapters[index].scan?.cancel()
            await adapters[index].central.stopScan()
        }
        for (name, device) in devices {
            device.work?.cancel()
            device.watcher?.cancel()
            if let peripheral = device.peripheral { await adapters[device.adapter].central.cancelConnection(peripheral) }
            publish(topics.availability(name), "offline", retain: true)
        }
        publishChanges()
        publish(topics.status, "offline", retain: true)
        listener?.cancel()
        await mqtt.close()
    }

    func reloaded(_ new: GatewayConfiguration) { configuration = new }

    static func policy(_ device: DeviceConfiguration) -> ConnectPolicy {
        switch device.connect {
        case .keep: .keep
        case .poll: .poll(every: device.pollInterval ?? .seconds(600))
        case .on_demand: .onDemand
        case .never: .never
        }
    }

    // MARK: Publishing

    func publish(_ topic: String, _ text: String, retain: Bool = false, qos: MQTTQoS = .atLeastOnce,
                 expiry: UInt32? = nil) {
        try? mqtt.publish(MQTTOutboundMessage(topic: topic, text: text, qos: qos, retain: retain, messageExpiry: expiry))
    }

    /// Wall-clock seconds for `ts`.
    nonisolated static func timestamp() -> Double { Date().timeIntervalSince1970 }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
