import Attune
import GatewayCore
import MQTTClient
import SensorDecoding

extension Gateway {
    /// Messages for this gateway: `/set` writes and Home Assistant's status.
    func listen() async {
        for await element in mqtt.messages {
            switch element {
            case .value(let message): await received(message)
            // A burst the gateway fell behind on: its `/set` writes get no result. The client
            // counts them (`statistics.droppedInbound`), and the stats topic publishes the count.
            case .dropped: continue
            }
        }
    }

    private func received(_ message: MQTTMessage) async {
        if leaseMessage(message) { return }
        if let discovery = configuration.mqtt.discovery, message.topic == "\(discovery.prefix)/status" {
            // Home Assistant restarted: it has forgotten the devices until they are sent again.
            if message.text == "online" { publishDiscovery() }
            return
        }
        // base/dev/<name>/<topic>/set
        let prefix = "\(topics.base)/dev/"
        guard message.topic.hasPrefix(prefix), message.topic.hasSuffix("/set") else { return }
        let middle = message.topic.dropFirst(prefix.count).dropLast(4)
        guard let slash = middle.firstIndex(of: "/") else { return }
        let name = String(middle[..<slash]), topic = String(middle[middle.index(after: slash)...])
        let write = DeviceRuntime.PendingWrite(topic: topic, payload: message.payload, responseTopic: message.responseTopic,
                                               correlationData: message.correlationData)
        guard let device = devices[name],
              device.configuration.gatt.contains(where: { $0.topic == topic && $0.write }) else {
            answer(name, write, error: "\(name)/\(topic) is not a writable entry of this gateway's config")
            return
        }
        // Another gateway of the fleet holds the device: its answer is the one that counts.
        if case .heldBy = leases[name]?.standing(at: Self.timestamp()) { return }
        if let peripheral = device.peripheral, device.handle != nil, device.characteristics[topic] != nil {
            await perform(name, write, peripheral)
            return
        }
        if case .keep = Self.policy(device.configuration), device.handle == nil {
            answer(name, write, error: "not connected (\(device.lastError ?? "waiting for the device"))")
            return
        }
        // On demand or poll: the write waits for the next link, which it asks for.
        guard device.pendingWrites.count < 16 else {
            answer(name, write, error: "16 writes already wait for a link")
            return
        }
        devices[name]?.pendingWrites.append(write)
        runPool(pool.request(device.id, at: clock.now))
    }

    func flushWrites(_ name: String, _ peripheral: Peripheral) async {
        guard let waiting = devices[name]?.pendingWrites, !waiting.isEmpty else { return }
        devices[name]?.pendingWrites = []
        for write in waiting { await perform(name, write, peripheral) }
    }

    private func perform(_ name: String, _ write: DeviceRuntime.PendingWrite, _ peripheral: Peripheral) async {
        guard let binding = devices[name]?.configuration.gatt.first(where: { $0.topic == write.topic }),
              let characteristic = devices[name]?.characteristics[write.topic] else {
            answer(name, write, error: "the characteristic is not on the device")
            return
        }
        let bytes: [UInt8]
        do { bytes = try ValueEncoding.bytes(write.payload, format: binding.format) } catch {
            answer(name, write, error: error.description)
            return
        }
        do throws(AttuneError) {
            let type: CharacteristicWriteType = characteristic.properties.contains(.write) ? .withResponse : .withoutResponse
            try await peripheral.writeValue(bytes, for: characteristic, type: type)
            devices[name]?.writes += 1
            answer(name, write, error: nil, written: bytes)
        } catch {
            answer(name, write, error: error.description)
        }
    }

    /// The result, on `<topic>/result` and on the MQTT 5 response topic when the request
    /// named one (with its correlation data).
    private func answer(_ name: String, _ write: DeviceRuntime.PendingWrite, error: String?, written: [UInt8] = []) {
        var fields: [(String, String)] = [("ok", error == nil ? "true" : "false")]
        if let error { fields.append(("error", JSONText.quoted(error))) } else {
            fields.append(("hex", JSONText.quoted(hexString(written, empty: ""))))
        }
        fields.append(("ts", JSONText.number(Self.timestamp())))
        fields.append(("via", JSONText.quoted(topics.clientID)))
        let payload = Array(JSONText.object(fields).utf8)
        try? mqtt.publish(MQTTOutboundMessage(topic: topics.result(name, write.topic), payload: payload, qos: .atLeastOnce))
        if let response = write.responseTopic {
            try? mqtt.publish(MQTTOutboundMessage(topic: response, payload: payload, qos: .atLeastOnce,
                                                  correlationData: write.correlationData))
        }
    }
}
