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
/// One actor makes every decision (GatewayCore's machines: the adapter pool with its
/// connection scheduler per adapter, a lease per device among the gateways on the broker,
/// availability, the subscription watchdog); values take the short path: each notification stream's task
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
        var id: AdapterID
        var name: String { id.name }
        var central: CentralManager
        var health: ScanHealth
        var scan: Task<Void, Never>?
        /// Follows the central's power state into the pool (adapterDown, adapterUp).
        var power: Task<Void, Never>?
        var scanning = false
        /// As the pool was last told: down after poweredOff, up again after poweredOn.
        var up = true
        var resets = 0
        /// Why the last reset failed, if it did.
        var lastResetError: String?
        var nextHandle: UInt16 = 1
    }

    var adapters: [AdapterRuntime] = []
    /// Which adapter serves which device, with each adapter's connection scheduler.
    var pool: AdapterPool
    var devices: [String: DeviceRuntime] = [:]
    /// Each connectable device's lease on the broker: only its owner connects it.
    var leases: [String: DeviceLease] = [:]
    /// The lease timing of every device (``Gateway/leaseDefaults``).
    let leaseConfiguration: LeaseConfiguration
    /// Set once the broker acknowledged the owner subscription: before that the retained
    /// records of the fleet are unknown, and a claim could not see an owner.
    var leasesReady = false
    var events: Task<Void, Never>?
    /// Configured devices by the address they are known at (their fixed address, or the
    /// last private address that resolved to their IRK).
    var byAddress: [BluetoothAddress: String] = [:]
    var availability = AvailabilityTracker()
    /// Subscriptions as desired state: written on every link, re-armed after a silence.
    var watchdog = SubscriptionWatchdog()
    let arrivals = NotificationArrivals()
    /// The one wake-up for every machine's earliest deadline.
    var timer = DeadlineTimer<Task<Void, Never>>()
    /// A re-arm is queued for the actor's next turn (``rearm()``).
    var rearmQueued = false
    var housekeeping: Task<Void, Never>?
    var listener: Task<Void, Never>?
    var stopped = false
    /// Unknown advertisers published (with `discover_unknown`), and the last time each was.
    var unknownSeen: [BluetoothAddress: MonotonicTime] = [:]

    /// The lease timing the gateway uses unless told otherwise. Takeover must come within
    /// 10 s of the owner's status going offline or its lease running out:
    /// - a claim settles in 1 s, so a takeover after either event is 1 s plus a connect;
    /// - an owner that dies without its will reaching anyone (a half-open socket the broker
    ///   only notices after 1.5 × the 30 s keepalive) stops renewing, and its 8 s lease
    ///   lapses first: takeover ≤ 9 s after its last renewal, plus a connect;
    /// - renewing every 2 s lets three renewals in a row be lost (a broker hiccup) before
    ///   the lease lapses under a live owner.
    /// One retained publish per owned device every 2 s is the price.
    public static let leaseDefaults = LeaseConfiguration(duration: 8, renewEvery: 2, settle: 1)

    /// - Parameters:
    ///   - configuration: the loaded config (its secrets resolved).
    ///   - transports: each adapter's `transport` string made into a transport (the CLI
    ///     parses them as `--transport` does; tests pass memory radios).
    ///   - mqtt: the broker link, not started yet; its will should be ``offlineWill(_:)``.
    ///   - store: where bonds and GATT caches are kept.
    ///   - lease: the timing of device leases among gateways on one broker.
    public init(configuration: GatewayConfiguration, transports: [String: BluetoothTransport], mqtt: MQTTClient,
                store: any Store = InMemoryStore(), lease: LeaseConfiguration = Gateway.leaseDefaults) {
        self.configuration = configuration
        self.topics = GatewayTopics(base: configuration.mqtt.base, clientID: configuration.mqtt.clientID)
        self.mqtt = mqtt
        self.leaseConfiguration = lease
        var seed = SystemRandomNumberGenerator()
        var pooled: [(AdapterID, SchedulerConfiguration)] = []
        var runtimes: [AdapterRuntime] = []
        for adapter in configuration.adapters {
            guard let transport = transports[adapter.transport] else { continue }
            let central = CentralManager(transport: transport, store: store)
            var scheduling = SchedulerConfiguration()
            scheduling.maxConnections = adapter.maxConnections
            let id = AdapterID(adapter.transport)
            pooled.append((id, scheduling))
            runtimes.append(AdapterRuntime(id: id, central: central, health: ScanHealth(adapter: id)))
        }
        adapters = runtimes
        pool = AdapterPool(adapters: pooled, seed: seed.next())
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
        events = Task { [weak self, mqtt] in
            for await element in mqtt.events {
                if case .value(let event) = element { await self?.brokerEvent(event) }
            }
        }
        try? mqtt.subscribe(topics.ownerFilter)
        try? mqtt.subscribe(topics.statusFilter)
        if let discovery = configuration.mqtt.discovery {
            try? mqtt.subscribe("\(discovery.prefix)/status")
            publishDiscovery()
        }
        listener = Task { [weak self] in await self?.listen() }
        let now = clock.now
        for device in configuration.devices { add(device, at: now) }
        for index in adapters.indices {
            startScan(index)
            watchPower(index)
        }
        housekeeping = Task { [weak self] in
            var slice = 0
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(1000 / Self.housekeepingSlices))
                await self?.publishChanges(slice: slice)
                slice = (slice + 1) % Self.housekeepingSlices
            }
        }
        rearm()
    }

    /// Disconnects every device, publishes `offline` for them and the gateway, and
    /// closes the broker link.
    public func stop() async {
        guard !stopped else { return }
        stopped = true
        timer.disarm()?.cancel()
        housekeeping?.cancel()
        for index in adapters.indices {
            adapters[index].scan?.cancel()
            adapters[index].power?.cancel()
            await adapters[index].central.stopScan()
        }
        // Every lease given up first, so another gateway may take over as soon as it sees the clear.
        let wall = Self.timestamp()
        var owned: Set<String> = []
        for name in leases.keys.sorted() {
            guard var lease = leases[name] else { continue }
            if lease.isOwner { owned.insert(name) }
            let step = lease.release(at: wall)
            leases[name] = lease
            for case .clear in step.actions { publishLease(name, nil) }
        }
        for (name, device) in devices {
            device.work?.cancel()
            device.watcher?.cancel()
            if let peripheral = device.peripheral, let index = device.linkAdapter {
                await adapters[index].central.cancelConnection(peripheral)
            }
            // A device another gateway holds is not ours to call offline.
            if leases[name] == nil || owned.contains(name) { publish(topics.availability(name), "offline", retain: true) }
        }
        publishChanges()
        publish(topics.status, "offline", retain: true)
        listener?.cancel()
        events?.cancel()
        await mqtt.close()
    }

    /// Ends the gateway as a crash would: links are dropped, nothing more is published,
    /// and the broker link closes without DISCONNECT, so the broker publishes the
    /// `offline` will and the fleet takes the devices over. Leases are not cleared.
    public func abandon() async {
        guard !stopped else { return }
        stopped = true
        timer.disarm()?.cancel()
        housekeeping?.cancel()
        listener?.cancel()
        events?.cancel()
        await mqtt.closeWithoutDisconnect()
        for index in adapters.indices {
            adapters[index].scan?.cancel()
            adapters[index].power?.cancel()
            await adapters[index].central.stopScan()
        }
        for (_, device) in devices {
            device.work?.cancel()
            device.watcher?.cancel()
        }
        for adapter in adapters { await adapter.central.cancelAllConnections() }
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
