/// Everything `attune gateway CONFIG` runs with, validated.
///
/// Load it with `init(yaml:)` (or `load(path:readFile:)`), then `resolveSecrets(readFile:)`
/// before connecting. `plan` says in words what would run; `changes(from:)` compares two for
/// a reload.
public struct GatewayConfiguration: Hashable, Sendable {
    public var mqtt: BrokerConfiguration
    /// In affinity order: a device goes to the first adapter with a free slot.
    public var adapters: [AdapterConfiguration]
    public var scan: ScanConfiguration
    /// Publish advertisements of devices that are not listed.
    public var discoverUnknown: Bool
    /// In file order; names, addresses and IRKs are unique.
    public var devices: [DeviceConfiguration]

    /// The most devices one gateway takes.
    public static let maxDevices = 4096
    /// The most adapters one gateway drives.
    public static let maxAdapters = 16

    public init(mqtt: BrokerConfiguration, adapters: [AdapterConfiguration], scan: ScanConfiguration = ScanConfiguration(),
                discoverUnknown: Bool = false, devices: [DeviceConfiguration] = []) {
        self.mqtt = mqtt
        self.adapters = adapters
        self.scan = scan
        self.discoverUnknown = discoverUnknown
        self.devices = devices
    }

    /// Parses and validates a YAML (or JSON) config. Secrets in files are not read yet.
    public init(yaml bytes: [UInt8], limits: YAMLLimits = YAMLLimits()) throws(GatewayConfigError) {
        try self.init(document: try YAMLLoader.load(bytes, limits: limits))
    }

    /// Validates a loaded document.
    public init(document node: YAMLNode) throws(GatewayConfigError) {
        let m: MappingReader
        do {
            m = try MappingReader(node, at: .root, keys: ["mqtt", "adapters", "scan", "discover_unknown", "devices"])
        } catch where error.path == .root {
            throw GatewayConfigError(path: .root, mark: node.mark,
                                     message: "expected a mapping at the top of the config, got \(node.kindDescription)")
        }
        mqtt = try m.require("mqtt") { n, p throws(GatewayConfigError) in try BrokerConfiguration(n, at: p) }
        adapters = try m.require("adapters") { n, p throws(GatewayConfigError) in try Self.adapters(n, p) }
        scan = try m.optional("scan") { n, p throws(GatewayConfigError) in try ScanConfiguration(n, at: p) }
            ?? ScanConfiguration()
        discoverUnknown = try m.optional("discover_unknown") { n, p throws(GatewayConfigError) in try Read.bool(n, p) } ?? false
        let transports = adapters.map(\.transport)
        devices = try m.optional("devices") { n, p throws(GatewayConfigError) in try Self.devices(n, p, transports: transports) } ?? []
    }

    /// Reads and validates the file at `path` (at most `limits.maxBytes`).
    public static func load(path: String, limits: YAMLLimits = YAMLLimits(),
                            readFile: (String, Int) throws(FileReadError) -> [UInt8] = SystemFile.read)
        throws(GatewayConfigError) -> GatewayConfiguration {
        let bytes: [UInt8]
        do {
            // One byte over the limit is enough to tell a file that is too big.
            bytes = try readFile(path, limits.maxBytes + 1)
        } catch {
            throw GatewayConfigError(path: .root, mark: nil, message: "cannot read \(path): \(error.reason)")
        }
        guard bytes.count <= limits.maxBytes else {
            throw GatewayConfigError(path: .root, mark: nil, message: "\(path) is larger than \(limits.maxBytes) bytes")
        }
        return try GatewayConfiguration(yaml: bytes, limits: limits)
    }

    static func adapters(_ node: YAMLNode, _ path: ConfigPath) throws(GatewayConfigError) -> [AdapterConfiguration] {
        let items = try Read.sequence(node, path)
        guard !items.isEmpty else { throw Read.fail(node, path, "empty; list at least one adapter") }
        guard items.count <= maxAdapters else {
            throw Read.fail(node, path, "\(items.count) entries; at most \(maxAdapters)")
        }
        var result: [AdapterConfiguration] = []
        for (i, item) in items.enumerated() {
            let adapter = try AdapterConfiguration(item, at: path.appending(index: i))
            if let first = result.firstIndex(where: { $0.transport == adapter.transport }) {
                throw GatewayConfigError(path: path.appending(index: i).appending("transport"), mark: item.mark,
                                         message: "\(quoted(adapter.transport)) is listed by \(path.appending(index: first)) too")
            }
            result.append(adapter)
        }
        return result
    }

    static func devices(_ node: YAMLNode, _ path: ConfigPath, transports: [String]) throws(GatewayConfigError) -> [DeviceConfiguration] {
        let items = try Read.sequence(node, path)
        // Counted before any entry is read, so a huge list fails at once.
        guard items.count <= maxDevices else {
            throw Read.fail(node, path, "\(items.count) entries; at most \(maxDevices)")
        }
        var result: [DeviceConfiguration] = []
        result.reserveCapacity(items.count)
        var names: [String: Int] = [:]
        var identities: [DeviceConfiguration.Identity: Int] = [:]
        for (i, item) in items.enumerated() {
            let p = path.appending(index: i)
            let device = try DeviceConfiguration(item, at: p, transports: transports)
            if let first = names.updateValue(i, forKey: device.name) {
                throw GatewayConfigError(path: p.appending("name"), mark: item.mark,
                                         message: "\(quoted(device.name)) is used by \(path.appending(index: first)) too")
            }
            // Same address whatever its type: one radio address is one device to the gateway.
            let identity: DeviceConfiguration.Identity
            let key: String
            switch device.identity {
            case .address(let a, _):
                identity = .address(a, .public)
                key = "address"
            case .irk:
                identity = device.identity
                key = "irk"
            }
            if let first = identities.updateValue(i, forKey: identity) {
                let what = key == "address" ? "\(identity.addressText ?? "")" : "this irk"
                throw GatewayConfigError(path: p.appending(key), mark: item.mark,
                                         message: "\(what) is used by \(path.appending(index: first)) too")
            }
            result.append(device)
        }
        return result
    }
}

extension DeviceConfiguration.Identity {
    /// `AA:BB:CC:DD:EE:FF` for an address, nil for an IRK.
    var addressText: String? {
        if case .address(let a, _) = self { return a.description }
        return nil
    }
}
