/// A peer's GATT database as last discovered, with the Database Hash it had then
/// (Vol 3 Part G §7.3), so a reconnect can check it instead of discovering again.
public struct GATTCache: Hashable, Sendable, Codable {
    /// Every service, primary and secondary, with its includes, characteristics and
    /// descriptors.
    public var services: [Service]
    /// The 16-byte Database Hash, or nil when the peer has none: such a cache can never
    /// be validated and is rediscovered on every connection.
    public var databaseHash: [UInt8]?

    /// A cache of `services` as they were when `databaseHash` was read.
    public init(services: [Service], databaseHash: [UInt8]?) {
        // In start-handle order, which lookups by binary search rely on.
        self.services = services.sorted { $0.startHandle < $1.startHandle }
        self.databaseHash = databaseHash
    }

    /// The most attribute declarations a real database can hold: one per handle
    /// (Vol 3 Part F §3.2.2). A tree with more (a peer that declares a primary and a
    /// secondary service at every handle) is not a database, and is not stored.
    public static let maximumAttributes = 0xFFFF

    /// The attributes the tree declares: each service and include declaration, each
    /// characteristic's declaration and value, each descriptor.
    public var attributeCount: Int {
        services.reduce(0) { total, s in
            total + 1 + (s.includedServices?.count ?? 0)
                + (s.characteristics ?? []).reduce(0) { $0 + 2 + ($1.descriptors?.count ?? 0) }
        }
    }

    private enum CodingKeys: String, CodingKey { case services, databaseHash }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        services = try c.decode([Service].self, forKey: .services).sorted { $0.startHandle < $1.startHandle }
        let hash = try c.decodeIfPresent([UInt8].self, forKey: .databaseHash)
        // A cache written before include declarations were kept has start handles only
        // (decoded as unknown includes). Validating it by hash would keep that partial
        // tree for good; without the hash the next connection discovers it whole.
        let formats = try c.decode([IncludeFormat].self, forKey: .services)
        databaseHash = formats.contains(where: \.lacksDeclarations) ? nil : hash
    }

    /// How a stored service recorded its includes, read beside the service itself.
    private struct IncludeFormat: Decodable {
        /// Start handles of included services without their declarations: the old form.
        let lacksDeclarations: Bool

        private enum CodingKeys: String, CodingKey { case includedServices, includedServiceHandles }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let old = try c.decodeIfPresent([UInt16].self, forKey: .includedServiceHandles)
            lacksDeclarations = !c.contains(.includedServices) && old?.isEmpty == false
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(services, forKey: .services)
        try c.encodeIfPresent(databaseHash, forKey: .databaseHash)
    }
}
