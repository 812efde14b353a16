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
        self.services = services
        self.databaseHash = databaseHash
    }

    private enum CodingKeys: String, CodingKey { case services, databaseHash }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        services = try c.decode([Service].self, forKey: .services)
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
