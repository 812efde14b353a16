/// Every topic the gateway publishes and listens on, under the config's `base`.
public struct GatewayTopics: Hashable, Sendable {
    public var base: String
    public var clientID: String

    public init(base: String, clientID: String) {
        self.base = base
        self.clientID = clientID
    }

    /// `online`, or `offline` through the last will. Retained.
    public var status: String { "\(base)/gateway/\(clientID)/status" }
    /// Retained JSON, one entry per adapter.
    public var adapters: String { "\(base)/gateway/\(clientID)/adapters" }
    /// Retained JSON of what the gateway counted as lost: MQTT messages dropped from the
    /// outbound queue, incoming ones dropped, watchdog samples passed over.
    public var stats: String { "\(base)/gateway/\(clientID)/stats" }
    /// `online` or `offline`, retained.
    public func availability(_ device: String) -> String { "\(base)/dev/\(device)/availability" }
    /// One value of a device.
    public func value(_ device: String, _ topic: String) -> String { "\(base)/dev/\(device)/\(topic)" }
    /// Where a payload to write arrives.
    public func set(_ device: String, _ topic: String) -> String { "\(base)/dev/\(device)/\(topic)/set" }
    /// Where the write's outcome goes.
    public func result(_ device: String, _ topic: String) -> String { "\(base)/dev/\(device)/\(topic)/result" }
    /// Retained JSON with every last value.
    public func state(_ device: String) -> String { "\(base)/dev/\(device)/state" }
    /// Retained JSON describing the device's live state for `attune gateway --explain`.
    public func explain(_ device: String) -> String { "\(base)/dev/\(device)/explain" }
    /// A device not in the config, with `discover_unknown`.
    public func advertisement(_ address: String) -> String { "\(base)/adv/\(address)" }
    /// Retained `{"gateway": ..., "until": ...}`: which gateway holds the device's lease.
    public func owner(_ device: String) -> String { "\(base)/dev/\(device)/owner" }
    /// Every device's owner record.
    public var ownerFilter: String { "\(base)/dev/+/owner" }
    /// Every gateway's status on this broker.
    public var statusFilter: String { "\(base)/gateway/+/status" }
    /// Every `/set` topic of this gateway's devices.
    public var setFilter: String { "\(base)/dev/+/+/set" }
}
