import Attune
import MQTTClient
import GatewayConfig
import GatewayCore
import SensorDecoding

extension Gateway {
    /// A new link's work: find each `gatt:` entry's characteristic, subscribe the ones
    /// that notify or indicate (desired state, written again on every link), read the
    /// ones that read, then for a poll device say the work is done.
    func setUp(_ name: String, _ peripheral: Peripheral) async {
        guard let device = devices[name] else { return }
        let bindings = device.configuration.gatt
        var found: [String: Characteristic] = [:]
        do throws(AttuneError) {
            let services = try await peripheral.discoverServices()
            for binding in bindings {
                for service in services where binding.service == nil || binding.service == service.uuid {
                    let characteristics = try await peripheral.discoverCharacteristics([binding.characteristic], for: service)
                    if let match = characteristics.first {
                        found[binding.topic] = match
                        break
                    }
                }
            }
        } catch {
            noteError(name, "discovery: \(error)")
            return
        }
        let missing = bindings.filter { found[$0.topic] == nil }.map { $0.characteristic.description }
        if !missing.isEmpty { noteError(name, "not on the device: \(missing.joined(separator: ", "))") }
        devices[name]?.characteristics = found
        if case .keep = Self.policy(device.configuration) {
            // Desired state: the watchdog has every CCCD written on each link, and watches them.
            runWatchdog(watchdog.connected(device.id, at: clock.now))
        } else {
            await subscribe(name, Self.desired(device.configuration), peripheral)
        }
        for binding in bindings where binding.read != .never {
            guard let characteristic = found[binding.topic] else { continue }
            await read(name, binding, characteristic, peripheral)
        }
        await flushWrites(name, peripheral)
        if case .poll = Self.policy(device.configuration) {
            runPool(pool.workDone(device.id, at: clock.now))
            return
        }
        // Periodic reads while the link lasts.
        let periodic = bindings.compactMap { binding -> (CharacteristicBinding, Duration)? in
            if case .every(let period) = binding.read, found[binding.topic] != nil { return (binding, period) }
            return nil
        }
        guard let shortest = periodic.map(\.1).min() else { return }
        var due = periodic.map { ($0.0, $0.1, ContinuousClock.now + $0.1) }
        while !Task.isCancelled {
            try? await Task.sleep(for: min(shortest, .seconds(1)))
            for i in due.indices where ContinuousClock.now >= due[i].2 {
                if let characteristic = found[due[i].0.topic] { await read(name, due[i].0, characteristic, peripheral) }
                due[i].2 = ContinuousClock.now + due[i].1
            }
        }
    }

    /// Subscribes the entries of `subscriptions` found on the link: a consumer for each
    /// stream (one per link), then the CCCD written (a subscription already on is left
    /// as it is). A peripheral can say it is notifying with no consumer on it: one that
    /// another adapter's central, or a new process, loaded from a store record still
    /// holding an earlier link's subscription. So only the write is skipped, never the
    /// consumer.
    func subscribe(_ name: String, _ subscriptions: [DesiredSubscription], _ peripheral: Peripheral) async {
        guard let device = devices[name] else { return }
        for binding in device.configuration.gatt where binding.subscription != .none {
            guard subscriptions.contains(where: { $0.characteristic == binding.characteristic }),
                  let characteristic = device.characteristics[binding.topic] else { continue }
            // Marked before the first await, so a second call on this link (the
            // watchdog's) cannot start a second consumer meanwhile.
            if devices[name]?.peripheral === peripheral, devices[name]?.consumers.insert(binding.topic).inserted == true {
                let stream = await peripheral.notifications(for: characteristic)
                startConsumer(name, binding, stream)
            }
            if await peripheral.isNotifying(characteristic) { continue }
            do throws(AttuneError) {
                try await peripheral.setNotifyValue(true, for: characteristic)
            } catch {
                noteError(name, "subscribe \(binding.topic): \(error)")
            }
        }
    }

    /// Reads a value and publishes it, retained (a read is state).
    func read(_ name: String, _ binding: CharacteristicBinding, _ characteristic: Characteristic, _ peripheral: Peripheral) async {
        do throws(AttuneError) {
            let value = try await peripheral.readValue(for: characteristic)
            publishValue(name, binding, value, retain: true, lostBefore: 0)
        } catch {
            noteError(name, "read \(binding.topic): \(error)")
        }
    }

    /// Each notification stream has its own task, which decodes and publishes without
    /// passing through the actor: the hot path of a busy gateway.
    private func startConsumer(_ name: String, _ binding: CharacteristicBinding, _ stream: NotificationStream) {
        let topic = topics.value(name, binding.topic)
        let decoder = CharacteristicValueDecoder(format: binding.format, scale: binding.scale, unit: binding.unit)
        let (mqtt, book, via, arrivals, clock) = (self.mqtt, self.values, topics.clientID, self.arrivals, self.clock)
        let key = NotificationArrivals.Key(device: name, topic: binding.topic)
        let rssi = devices[name]?.rssi
        Task {
            // The stream ends with the link (the next link subscribes again, with a new one).
            do {
                for try await notification in stream {
                    arrivals.arrived(key, at: clock.now)
                    let json = Self.render(decoder, notification.value, rssi: rssi, via: via, lostBefore: notification.lostBefore)
                    try? mqtt.publish(MQTTOutboundMessage(topic: topic, text: json, qos: .atLeastOnce, retain: false))
                    book.record(device: name, topic: binding.topic, json: json)
                }
            } catch {}
        }
    }

    func publishValue(_ name: String, _ binding: CharacteristicBinding, _ value: [UInt8], retain: Bool, lostBefore: Int) {
        let decoder = CharacteristicValueDecoder(format: binding.format, scale: binding.scale, unit: binding.unit)
        let json = Self.render(decoder, value, rssi: devices[name]?.rssi, via: topics.clientID, lostBefore: lostBefore)
        publish(topics.value(name, binding.topic), json, retain: retain)
        values.record(device: name, topic: binding.topic, json: json)
    }

    /// The published JSON of one value; a value the format cannot decode is published
    /// as its hex with the decoding error, never dropped.
    nonisolated static func render(_ decoder: CharacteristicValueDecoder, _ bytes: [UInt8], rssi: Int?, via: String,
                                   lostBefore: Int) -> String {
        var extra: [DecodedValue.Field] = [DecodedValue.Field("ts", timestampNumber(timestamp()))]
        if let rssi { extra.append(DecodedValue.Field("rssi", .number(DecodedNumber(Int64(rssi))))) }
        extra.append(DecodedValue.Field("via", .string(via)))
        if lostBefore > 0 { extra.append(DecodedValue.Field("lost_before", .number(DecodedNumber(Int64(lostBefore))))) }
        do {
            return try decoder.decode(bytes).json(appending: extra)
        } catch {
            let hex = hexString(bytes, empty: "")
            return DecodedValue(value: .string(hex), hex: hex, fields: [DecodedValue.Field("error", .string("\(error)"))])
                .json(appending: extra)
        }
    }

    /// Seconds since 1970 to the microsecond, the clock's own resolution. Built from the
    /// integer count, not from the double's shortest decimal: that parse, on every value
    /// published, was 3.5 % of the gateway's CPU at 10,000 values a second.
    nonisolated static func timestampNumber(_ seconds: Double) -> FieldValue {
        guard seconds.isFinite, let micros = Int64(exactly: (seconds * 1e6).rounded()) else { return .null }
        return .number(DecodedNumber(significand: micros, exponent: -6))
    }

    func noteError(_ name: String, _ text: String) {
        devices[name]?.lastError = text
        publishExplain(name)
    }
}
