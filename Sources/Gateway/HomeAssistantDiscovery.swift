import GatewayConfig

/// Home Assistant's device-based MQTT discovery (`<prefix>/device/<id>/config`): one
/// document per device with a component per value topic, all following the device's
/// availability topic. Values are read from the published JSON's `value`.
enum HomeAssistantDiscovery {
    static func identifier(_ name: String, _ topics: GatewayTopics) -> String {
        "attune_\(topics.clientID)_\(name)".map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" }
            .reduce(into: "") { $0.append($1) }
    }

    static func document(for device: DeviceConfiguration, topics: GatewayTopics) -> String {
        let id = identifier(device.name, topics)
        var components: [(String, String)] = []
        for binding in device.gatt where binding.read != .never || binding.subscription != .none {
            var fields: [(String, String)] = [
                ("p", JSONText.quoted("sensor")),
                ("name", JSONText.quoted(binding.topic)),
                ("unique_id", JSONText.quoted("\(id)_\(binding.topic)")),
                ("state_topic", JSONText.quoted(topics.value(device.name, binding.topic))),
                ("value_template", JSONText.quoted("{{ value_json.value }}")),
            ]
            if let unit = binding.unit ?? binding.format.defaultUnit { fields.append(("unit_of_measurement", JSONText.quoted(unit))) }
            components.append((binding.topic, JSONText.object(fields)))
        }
        for binding in device.gatt where binding.write {
            components.append(("\(binding.topic)_set", JSONText.object([
                ("p", JSONText.quoted("text")),
                ("name", JSONText.quoted("\(binding.topic) (write)")),
                ("unique_id", JSONText.quoted("\(id)_\(binding.topic)_set")),
                ("command_topic", JSONText.quoted(topics.set(device.name, binding.topic))),
            ])))
        }
        return JSONText.object([
            ("dev", JSONText.object([("ids", "[" + JSONText.quoted(id) + "]"), ("name", JSONText.quoted(device.name))])),
            ("o", JSONText.object([("name", JSONText.quoted("attune"))])),
            ("avty_t", JSONText.quoted(topics.availability(device.name))),
            ("cmps", JSONText.object(components)),
        ])
    }
}
