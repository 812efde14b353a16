/// What a reload changes (`GatewayConfiguration.changes(from:)`): which devices to start,
/// stop, restart or leave running, and which gateway-wide sections differ.
///
/// Devices are matched by name. A device whose entry is equal in both keeps running.
public struct ConfigurationChanges: Hashable, Sendable {
    /// Names in the new config only, in its order.
    public var added: [String]
    /// Names in the old config only, in its order.
    public var removed: [String]
    /// Names in both whose entries differ, in the new config's order.
    public var changed: [String]
    /// Names in both with equal entries, in the new config's order.
    public var unchanged: [String]
    /// The `mqtt:` section differs (after secrets are resolved): the broker session restarts.
    public var mqttChanged: Bool
    /// The `adapters:` list differs.
    public var adaptersChanged: Bool
    /// The `scan:` section differs.
    public var scanChanged: Bool
    /// `discover_unknown` differs.
    public var discoverUnknownChanged: Bool

    public init(added: [String] = [], removed: [String] = [], changed: [String] = [], unchanged: [String] = [],
                mqttChanged: Bool = false, adaptersChanged: Bool = false, scanChanged: Bool = false,
                discoverUnknownChanged: Bool = false) {
        self.added = added
        self.removed = removed
        self.changed = changed
        self.unchanged = unchanged
        self.mqttChanged = mqttChanged
        self.adaptersChanged = adaptersChanged
        self.scanChanged = scanChanged
        self.discoverUnknownChanged = discoverUnknownChanged
    }

    /// True when the reload changes nothing.
    public var isEmpty: Bool {
        added.isEmpty && removed.isEmpty && changed.isEmpty && !mqttChanged && !adaptersChanged && !scanChanged
            && !discoverUnknownChanged
    }
}

extension GatewayConfiguration {
    /// How this configuration differs from `old`, the one running.
    public func changes(from old: GatewayConfiguration) -> ConfigurationChanges {
        var oldByName: [String: DeviceConfiguration] = [:]
        for d in old.devices { oldByName[d.name] = d }
        let newNames = Set(devices.map(\.name))
        var result = ConfigurationChanges(
            mqttChanged: mqtt != old.mqtt, adaptersChanged: adapters != old.adapters, scanChanged: scan != old.scan,
            discoverUnknownChanged: discoverUnknown != old.discoverUnknown)
        for d in devices {
            switch oldByName[d.name] {
            case nil: result.added.append(d.name)
            case let previous? where previous == d: result.unchanged.append(d.name)
            default: result.changed.append(d.name)
            }
        }
        result.removed = old.devices.map(\.name).filter { !newNames.contains($0) }
        return result
    }
}
