import SensorDecoding
import BluetoothCore

/// One `devices:` entry.
public struct DeviceConfiguration: Hashable, Sendable {
    /// How the gateway recognises the device.
    public enum Identity: Hashable, Sendable {
        /// A fixed address (`address:` and `address_type:`).
        case address(BluetoothAddress, BluetoothAddressType)
        /// A device that uses resolvable private addresses, found by its IRK (`irk:`).
        case irk(Key128)
    }

    /// How the gateway connects to it (Docs/gateway-config.md gives the defaults).
    public enum ConnectMode: String, Hashable, Sendable, CaseIterable {
        /// Hold a connection, reconnecting when it drops.
        case keep
        /// Connect every `every`, read, disconnect.
        case poll
        /// Connect when a `<topic>/set` arrives.
        case on_demand
        /// Advertisements only.
        case never
    }

    /// The advertisement decoder for the device (`decode:` of the device).

    /// Unique, and one MQTT topic level: `<base>/dev/<name>/...`.
    public var name: String
    public var identity: Identity
    /// Nil when advertisements are not decoded.
    public var advertisement: AdvertisementFormat?
    /// The BTHome encryption key (`bindkey:`), only with `decode: bthome`.
    public var bindkey: Key128?
    public var connect: ConnectMode
    /// `every:` as written. Only `poll` uses it; see `pollInterval`.
    public var every: Duration?
    public var gatt: [CharacteristicBinding]
    /// `adapters:`: the transports of the adapters that may serve it, best first (each one
    /// of the config's `adapters:`). Empty: any adapter, in the config's order.
    public var adapters: [String]

    public init(name: String, identity: Identity, advertisement: AdvertisementFormat? = nil, bindkey: Key128? = nil,
                connect: ConnectMode? = nil, every: Duration? = nil, gatt: [CharacteristicBinding] = [],
                adapters: [String] = []) {
        self.name = name
        self.identity = identity
        self.advertisement = advertisement
        self.bindkey = bindkey
        self.connect = connect ?? Self.defaultConnect(gatt)
        self.every = every
        self.gatt = gatt
        self.adapters = adapters
    }

    /// `never` without `gatt`, `keep` when something is subscribed, else `poll`.
    public static func defaultConnect(_ gatt: [CharacteristicBinding]) -> ConnectMode {
        if gatt.isEmpty { return .never }
        return gatt.contains { $0.subscription != .none } ? .keep : .poll
    }

    /// For `poll`: `every`, else the shortest `read` period, else 10 minutes. Nil otherwise.
    public var pollInterval: Duration? {
        guard connect == .poll else { return nil }
        if let every { return every }
        let periods = gatt.compactMap { b -> Duration? in
            if case .every(let d) = b.read { return d }
            return nil
        }
        return periods.min() ?? .seconds(600)
    }

    /// The most `gatt:` entries one device may have.
    public static let maxCharacteristics = 64

    static let keys = ["name", "address", "irk", "address_type", "decode", "bindkey", "connect", "every", "gatt", "adapters"]

    /// `transports`: the config's adapters, which `adapters:` may name.
    init(_ node: YAMLNode, at path: ConfigPath, transports: [String]) throws(GatewayConfigError) {
        let m = try MappingReader(node, at: path, keys: Self.keys)
        name = try m.require("name") { n, p throws(GatewayConfigError) in try Read.topicLevel(n, p) }
        switch (m.has("address"), m.has("irk")) {
        case (true, true):
            throw m.error("irk", "give address or irk, not both")
        case (false, false):
            throw GatewayConfigError(path: path.appending("address"), mark: m.mark, message: "missing (or give irk)")
        case (true, false):
            let address = try m.require("address") { n, p throws(GatewayConfigError) in try Read.address(n, p) }
            let type = try m.optional("address_type") { n, p throws(GatewayConfigError) in
                try Read.choice(n, p, WrittenAddressType.self)
            } ?? .public
            identity = .address(address, type == .public ? .public : .random)
        case (false, true):
            if m.has("address_type") {
                throw m.error("address_type", "not with irk (the device's addresses are resolvable private ones)")
            }
            identity = .irk(try m.require("irk") { n, p throws(GatewayConfigError) in try Read.key128(n, p) })
        }
        advertisement = try m.optional("decode") { n, p throws(GatewayConfigError) in
            try Read.choice(n, p, AdvertisementFormat.self)
        }
        bindkey = try m.optional("bindkey") { n, p throws(GatewayConfigError) in try Read.key128(n, p) }
        if bindkey != nil, advertisement != .bthome {
            throw m.error("bindkey", "only with decode: bthome")
        }
        every = try m.optional("every") { n, p throws(GatewayConfigError) in try Read.duration(n, p) }
        gatt = try m.optional("gatt") { n, p throws(GatewayConfigError) in try Self.bindings(n, p) } ?? []
        connect = try m.optional("connect") { n, p throws(GatewayConfigError) in
            try Read.choice(n, p, ConnectMode.self)
        } ?? Self.defaultConnect(gatt)
        if connect == .never, !gatt.isEmpty {
            throw m.error("connect", "never, but the device has gatt entries")
        }
        adapters = try m.optional("adapters") { n, p throws(GatewayConfigError) in try Self.affinity(n, p, transports) } ?? []
    }

    /// `adapters:` of a device: transports of the config's adapters, each once.
    static func affinity(_ node: YAMLNode, _ path: ConfigPath, _ transports: [String]) throws(GatewayConfigError) -> [String] {
        let items = try Read.sequence(node, path)
        guard items.count <= GatewayConfiguration.maxAdapters else {
            throw Read.fail(node, path, "\(items.count) entries; at most \(GatewayConfiguration.maxAdapters)")
        }
        var result: [String] = []
        for (i, item) in items.enumerated() {
            let p = path.appending(index: i)
            let transport = try Read.text(item, p)
            guard transports.contains(transport) else {
                throw Read.fail(item, p, "\(quoted(transport)) is not the transport of an entry of adapters")
            }
            if let first = result.firstIndex(of: transport) {
                throw Read.fail(item, p, "\(quoted(transport)) is listed by \(path.appending(index: first)) too")
            }
            result.append(transport)
        }
        return result
    }

    static func bindings(_ node: YAMLNode, _ path: ConfigPath) throws(GatewayConfigError) -> [CharacteristicBinding] {
        let items = try Read.sequence(node, path)
        guard items.count <= maxCharacteristics else {
            throw Read.fail(node, path, "\(items.count) entries; at most \(maxCharacteristics)")
        }
        var result: [CharacteristicBinding] = []
        var topics: [String: Int] = [:]
        var characteristics: [String: Int] = [:]
        for (i, item) in items.enumerated() {
            let p = path.appending(index: i)
            let binding = try CharacteristicBinding(item, at: p)
            if let first = topics.updateValue(i, forKey: binding.topic) {
                throw GatewayConfigError(path: p.appending("topic"), mark: item.mark,
                                         message: "\(quoted(binding.topic)) is used by \(path.appending(index: first)) too")
            }
            let key = "\(binding.service?.fullString ?? "")/\(binding.characteristic.fullString)"
            if let first = characteristics.updateValue(i, forKey: key) {
                throw GatewayConfigError(path: p.appending("characteristic"), mark: item.mark,
                                         message: "\(binding.characteristic) is bound by \(path.appending(index: first)) too")
            }
            result.append(binding)
        }
        return result
    }
}

/// `address_type:` as the config spells it.
enum WrittenAddressType: String, CaseIterable {
    case `public`, random
}
