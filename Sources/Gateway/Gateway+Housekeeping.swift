import BluetoothCore
import GatewayCore

extension Gateway {
    /// Once a second: each device whose values changed gets its retained `state`, and the
    /// adapters topic is refreshed.
    /// Once a second: the watchdog's arrivals, the leases, the adapters and stats topics,
    /// and every changed device's state. `slice` spreads the states: housekeeping runs
    /// ten times a second and each run publishes one tenth of the devices (each device's
    /// state still at most once a second), so a thousand retained states do not queue
    /// ahead of the values in one burst. nil publishes everything at once (stopping).
    func publishChanges(slice: Int? = nil) {
        if slice == nil || slice == 0 {
            feedWatchdog()
            refreshLeases()
        }
        let changed = slice.map { values.takeChanged(slice: $0, of: Self.housekeepingSlices) } ?? values.takeChanged()
        for (device, state) in changed {
            publish(topics.state(device), state, retain: true)
        }
        if slice == nil || slice == 0 { publishAdapters() }
    }

    /// Housekeeping runs this many times a second (``publishChanges(slice:)``).
    static let housekeepingSlices = 10

    /// `attune/gateway/<id>/adapters`: powered, scanning, slots, advertisements per second, resets.
    func publishAdapters() {
        let now = clock.now
        var assigned: [Int: Int] = [:]
        for device in devices.values { if let index = device.adapter { assigned[index, default: 0] += 1 } }
        let entries = adapters.enumerated().map { index, adapter in
            let scheduler = pool.scheduler(of: adapter.id)
            return JSONText.object([
                ("transport", JSONText.quoted(adapter.name)),
                ("powered", adapter.central.state == .poweredOn ? "true" : "false"),
                ("scanning", adapter.scanning ? "true" : "false"),
                ("slots_used", String(scheduler?.slotsUsed ?? 0)),
                ("slots_free", String(scheduler?.slotsFree ?? 0)),
                ("devices", String(assigned[index] ?? 0)),
                ("advertisements_per_s", JSONText.number((adapter.health.advertisementsPerSecond(at: now) * 10).rounded() / 10)),
                ("resets", String(adapter.resets)),
                ("last_reset_error", adapter.lastResetError.map(JSONText.quoted) ?? "null"),
            ])
        }
        publish(topics.adapters, "[" + entries.joined(separator: ", ") + "]", retain: true)
        let mqttStatistics = mqtt.statistics
        publish(topics.stats, JSONText.object([
            ("mqtt_queued", String(mqttStatistics.queued)),
            ("mqtt_dropped", String(mqttStatistics.droppedMessages)),
            ("mqtt_incoming_dropped", String(mqttStatistics.droppedInbound)),
            ("watchdog_samples_passed_over", String(arrivals.passedOver)),
            ("ts", JSONText.number(Self.timestamp())),
        ]), retain: true)
    }

    /// `attune/dev/<name>/explain`, retained: the device's live state, which
    /// `attune gateway CONFIG --explain NAME` prints.
    func publishExplain(_ name: String) {
        guard let device = devices[name] else { return }
        // The topic is the device's, not this gateway's: while another gateway holds the
        // lease, its state is the one to explain.
        if case .heldBy = leases[name]?.standing(at: Self.timestamp()) { return }
        // The adapter the pool assigned it to, or (while the pool moves it on) the one its link is on.
        let adapter = (device.adapter ?? device.linkAdapter).flatMap { adapters[safe: $0] }
        let scheduler = adapter.flatMap { pool.scheduler(of: $0.id) }
        var fields: [(String, String)] = [
            ("device", JSONText.quoted(name)),
            ("adapter", adapter.map { JSONText.quoted($0.name) } ?? "null"),
            ("connected", device.handle != nil ? "true" : "false"),
            ("online", availability.availability(of: device.id).map { $0 ? "true" : "false" } ?? "null"),
        ]
        if let lease = leases[name] {
            let standing = lease.standing(at: Self.timestamp())
            fields.append(("lease", JSONText.quoted(Self.describe(standing))))
            if case .heldBy(let owner, _) = standing { fields.append(("owner", JSONText.quoted(owner))) }
            if case .mine = standing { fields.append(("owner", JSONText.quoted(topics.clientID))) }
        }
        if let report = scheduler?.report(for: device.id) {
            fields.append(("link", JSONText.quoted("\(report.link)")))
            fields.append(("retry", JSONText.quoted("\(report.retry)")))
            fields.append(("failures", String(report.failures)))
            fields.append(("last_failure", report.lastFailure.map { JSONText.quoted(Self.describe($0)) } ?? "null"))
        }
        if let scheduler {
            fields.append(("slot", JSONText.quoted("\(scheduler.slotsUsed)/\(scheduler.configuration.maxConnections)")))
        }
        fields.append(("last_error", device.lastError.map(JSONText.quoted) ?? "null"))
        fields.append(("resubscribes", String(device.resubscribes)))
        if let interval = watchdog.learnedInterval(of: device.id, Self.desired(device.configuration).first
                                                   ?? DesiredSubscription(characteristic: BluetoothUUID(0))) {
            fields.append(("notification_interval_s", JSONText.number(Double(interval.components.seconds)
                + Double(interval.components.attoseconds) / 1e18)))
        }
        fields.append(("subscriptions", "[" + device.configuration.gatt.filter { $0.subscription != .none }
            .map { JSONText.quoted($0.topic) }.joined(separator: ", ") + "]"))
        fields.append(("values", values.state(of: name)))
        fields.append(("ts", JSONText.number(Self.timestamp())))
        publish(topics.explain(name), JSONText.object(fields), retain: true)
    }

    static func describe(_ failure: SchedulerFailure) -> String {
        switch failure {
        case .connectFailed(let reason): "connect failed: \(reason)"
        case .connectTimeout: "connect timed out"
        case .disconnected(let reason): "disconnected: \(reason)"
        }
    }

    /// Home Assistant device-based discovery: one retained config per device, naming a
    /// sensor component per published topic, and its availability.
    func publishDiscovery() {
        guard let discovery = configuration.mqtt.discovery else { return }
        for device in configuration.devices {
            let document = HomeAssistantDiscovery.document(for: device, topics: topics)
            publish("\(discovery.prefix)/device/\(HomeAssistantDiscovery.identifier(device.name, topics))/config",
                    document, retain: true)
        }
    }
}
