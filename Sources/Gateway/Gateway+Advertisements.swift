import Attune
import BluetoothCore
import GatewayCore
import SensorDecoding

extension Gateway {
    func startScan(_ index: Int) {
        let central = adapters[index].central
        adapters[index].scan = Task { [weak self] in
            // The adapter may still be coming up; its state says when it can scan.
            for await state in central.stateUpdates where state == .poweredOn { break }
            guard let stream = try? central.scan(allowDuplicates: true) else {
                await self?.scanEnded(index)
                return
            }
            await self?.scanStarted(index)
            for await advertisement in stream {
                await self?.advertisement(advertisement, on: index)
            }
            await self?.scanEnded(index)
        }
    }

    func restartScan(_ index: Int) {
        adapters[index].scan?.cancel()
        let central = adapters[index].central
        Task { [weak self] in
            await central.stopScan()
            await self?.startScan(index)
        }
    }

    private func scanStarted(_ index: Int) {
        adapters[index].scanning = true
        runHealth(index, adapters[index].health.scanning(true, at: clock.now))
    }

    private func scanEnded(_ index: Int) {
        adapters[index].scanning = false
        runHealth(index, adapters[index].health.scanning(false, at: clock.now))
    }

    func runHealth(_ index: Int, _ step: GatewayStep<ScanHealthAction>) {
        for action in step.actions {
            switch action {
            case .restartScan: restartScan(index)
            case .resetAdapter:
                resetAdapter(index)
            case .report(let event):
                publish(topics.adapters + "/events", JSONText.object([
                    ("adapter", JSONText.quoted(event.adapter.name)), ("step", JSONText.quoted(event.step.rawValue)),
                    ("silent_s", JSONText.number(Double(event.silentFor.components.seconds))),
                    ("ts", JSONText.number(Self.timestamp()))]))
            }
        }
    }

    /// One advertisement: to its device (availability, the scheduler, its decoder), or
    /// published as unknown with `discover_unknown`.
    func advertisement(_ advertisement: Advertisement, on index: Int) {
        let now = clock.now
        runHealth(index, adapters[index].health.advertisements(1, at: now))
        guard let name = device(for: advertisement) else {
            if configuration.discoverUnknown { publishUnknown(advertisement, at: now) }
            return
        }
        guard var device = devices[name] else { return }
        device.rssi = advertisement.rssi
        // Where it advertises now is where this adapter's next link to it goes.
        device.heard[index] = (advertisement, now)
        var readings: [DecodedReading] = []
        var alarm: [UInt8]?
        if var decoder = device.decoder {
            do {
                switch try decoder.decode(address: advertisement.address, serviceData: advertisement.serviceData,
                                          manufacturerData: advertisement.manufacturerData) {
                case .readings(let found, _): readings = found
                case .downgradeAlarm(let data): alarm = data
                case .duplicate, .absent: break
                }
            } catch {
                device.lastError = "advertisement: \(error)"
            }
            device.decoder = decoder
        }
        devices[name] = device
        let ts = Self.timestamp()
        for reading in readings {
            let json = reading.value.json(ts: ts, rssi: advertisement.rssi, via: topics.clientID)
            publish(topics.value(name, reading.key), json, retain: !reading.isEvent)
            if !reading.isEvent { values.record(device: name, topic: reading.key, json: json) }
        }
        if let alarm {
            // Plaintext from a device that has a key: someone may be spoofing it.
            publish(topics.value(name, "downgrade_alarm"), JSONText.object([
                ("hex", JSONText.quoted(hexString(alarm, empty: ""))), ("ts", JSONText.number(ts)),
                ("via", JSONText.quoted(topics.clientID))]))
        }
        runAvailability(availability.advertisement(from: device.id, at: now))
        if Self.policy(device.configuration) != .never {
            runPool(pool.advertisement(from: device.id, on: adapters[index].id, at: now))
            leaseCanServe(name)
        }
    }

    /// The configured device an advertisement comes from: by address, or by an IRK that
    /// resolves its resolvable private address (remembered for the next one).
    private func device(for advertisement: Advertisement) -> String? {
        if let name = byAddress[advertisement.address] { return name }
        let type = advertisement.addressType ?? .random
        guard ResolvablePrivateAddress.isResolvable(advertisement.address, type: type) else { return nil }
        for (name, device) in devices {
            guard case .irk(let key) = device.configuration.identity else { continue }
            // The config writes the IRK most significant octet first; `ah` takes it least first.
            if ResolvablePrivateAddress.resolves(advertisement.address, with: key.bytes.reversed()) {
                // One private address per device: one that rotates every 15 min must not grow the map.
                byAddress = byAddress.filter { $0.value != name }
                byAddress[advertisement.address] = name
                return name
            }
        }
        return nil
    }

    /// `attune/adv/<address>`: QoS 0 with a 30 s expiry, at most once a second per advertiser.
    private func publishUnknown(_ advertisement: Advertisement, at now: MonotonicTime) {
        if let last = unknownSeen[advertisement.address], now.duration(since: last) < .seconds(1) { return }
        if unknownSeen.count >= 4096 { unknownSeen.removeAll(keepingCapacity: true) }
        unknownSeen[advertisement.address] = now
        var fields: [(String, String)] = [("address", JSONText.quoted(advertisement.address.description))]
        if let name = advertisement.localName { fields.append(("name", JSONText.quoted(name))) }
        if let rssi = advertisement.rssi { fields.append(("rssi", String(rssi))) }
        for (uuid, data) in advertisement.serviceData.sorted(by: { $0.key.description < $1.key.description }) {
            fields.append(("service_data_\(uuid)", JSONText.quoted(hexString(data, empty: ""))))
        }
        for (company, data) in advertisement.manufacturerData.sorted(by: { $0.key < $1.key }) {
            fields.append(("manufacturer_data_\(company)", JSONText.quoted(hexString(data, empty: ""))))
        }
        fields.append(("ts", JSONText.number(Self.timestamp())))
        fields.append(("via", JSONText.quoted(topics.clientID)))
        publish(topics.advertisement(advertisement.address.description), JSONText.object(fields), qos: .atMostOnce, expiry: 30)
    }
}
