import SensorDecoding
import BluetoothCore

/// One `gatt:` entry: a characteristic of a connected device and what the gateway does with it.
public struct CharacteristicBinding: Hashable, Sendable {
    /// Whether the gateway keeps the characteristic's CCCD set, and to what.
    public enum Subscription: String, Hashable, Sendable {
        case none, notify, indicate
    }

    /// When the gateway reads the value.
    public enum ReadPolicy: Hashable, Sendable {
        case never
        /// After each connection is set up (`read: true`).
        case onConnect
        /// Every period while connected, and after each connection (`read: 60s`).
        case every(Duration)
    }

    public var characteristic: BluetoothUUID
    /// The service that holds it, when the same UUID occurs in several.
    public var service: BluetoothUUID?
    public var subscription: Subscription
    public var read: ReadPolicy
    /// True when `<topic>/set` payloads are written to it.
    public var write: Bool
    /// The topic level under `<base>/dev/<name>/` (default: the UUID, lowercase).
    public var topic: String
    /// How values are decoded (default `hex`).
    public var format: ValueFormat
    /// A factor the decoded number is multiplied by.
    public var scale: Double?
    public var unit: String?

    public init(characteristic: BluetoothUUID, service: BluetoothUUID? = nil, subscription: Subscription = .none,
                read: ReadPolicy = .never, write: Bool = false, topic: String? = nil, format: ValueFormat = .hex,
                scale: Double? = nil, unit: String? = nil) {
        self.characteristic = characteristic
        self.service = service
        self.subscription = subscription
        self.read = read
        self.write = write
        self.topic = topic ?? characteristic.description.lowercased()
        self.format = format
        self.scale = scale
        self.unit = unit
    }

    /// Topic levels the gateway publishes under `<base>/dev/<name>/` itself.
    static let reservedTopics: Set<String> = ["availability", "state", "owner"]

    static let keys = ["characteristic", "service", "notify", "indicate", "read", "write", "topic", "decode",
                       "scale", "unit"]

    init(_ node: YAMLNode, at path: ConfigPath) throws(GatewayConfigError) {
        let m = try MappingReader(node, at: path, keys: Self.keys)
        characteristic = try m.require("characteristic") { n, p throws(GatewayConfigError) in try Read.uuid(n, p) }
        service = try m.optional("service") { n, p throws(GatewayConfigError) in try Read.uuid(n, p) }
        let notify = try m.optional("notify") { n, p throws(GatewayConfigError) in try Read.bool(n, p) } ?? false
        let indicate = try m.optional("indicate") { n, p throws(GatewayConfigError) in try Read.bool(n, p) } ?? false
        if notify, indicate { throw m.error("indicate", "choose notify or indicate, not both") }
        subscription = notify ? .notify : indicate ? .indicate : .none
        read = try m.optional("read") { n, p throws(GatewayConfigError) in try Self.readPolicy(n, p) } ?? .never
        write = try m.optional("write") { n, p throws(GatewayConfigError) in try Read.bool(n, p) } ?? false
        topic = try m.optional("topic") { n, p throws(GatewayConfigError) in try Read.topicLevel(n, p) }
            ?? characteristic.description.lowercased()
        if Self.reservedTopics.contains(topic) {
            throw m.error("topic", "\(quoted(topic)) is the gateway's own topic; choose another")
        }
        format = try m.optional("decode") { n, p throws(GatewayConfigError) in try Read.choice(n, p, ValueFormat.self) } ?? .hex
        scale = try m.optional("scale") { n, p throws(GatewayConfigError) in try Read.number(n, p) }
        unit = try m.optional("unit") { n, p throws(GatewayConfigError) in try Read.text(n, p, maxLength: 32) }
        for key in ["scale", "unit"] where m.has(key) && (format == .utf8 || format == .hex) {
            throw m.error(key, "does not apply to decode: \(format.rawValue)")
        }
        if subscription == .none, read == .never, !write {
            throw GatewayConfigError(path: path, mark: node.mark, message: "does nothing: set notify, indicate, read or write")
        }
    }

    /// `read: 60s` (a period), `read: true` (on each connection) or `read: false`.
    static func readPolicy(_ node: YAMLNode, _ path: ConfigPath) throws(GatewayConfigError) -> ReadPolicy {
        if case .scalar(let s) = node.content, case .boolean(let b) = s.value {
            return b ? .onConnect : .never
        }
        return .every(try Read.duration(node, path))
    }
}
