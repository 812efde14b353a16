/// One Bluetooth adapter the gateway drives (`adapters:` entries, in affinity order).
public struct AdapterConfiguration: Hashable, Sendable {
    /// Any `--transport` form (`hci0`, `user:hci1`, `tcp:HOST:PORT`, ...), kept as written:
    /// the CLI's transport parser is the one authority on what it means.
    public var transport: String
    /// How many LE connections the gateway may hold on this adapter at once (1...64; default 5).
    public var maxConnections: Int

    public init(transport: String, maxConnections: Int = 5) {
        self.transport = transport
        self.maxConnections = maxConnections
    }

    init(_ node: YAMLNode, at path: ConfigPath) throws(GatewayConfigError) {
        let m = try MappingReader(node, at: path, keys: ["transport", "max_connections"])
        transport = try m.require("transport") { n, p throws(GatewayConfigError) in try Read.text(n, p, maxLength: 256) }
        if transport.isEmpty || transport.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) {
            throw m.error("transport", "empty or contains spaces or control characters")
        }
        maxConnections = try m.optional("max_connections") { n, p throws(GatewayConfigError) in
            try Read.integer(n, p, in: 1...64)
        } ?? 5
    }
}
