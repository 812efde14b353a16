/// A peer's GATT database as last discovered, with the Database Hash it had then
/// (Vol 3 Part G §7.3), so a reconnect can check it instead of discovering again.
public struct GATTCache: Hashable, Sendable, Codable {
    /// Every service with its characteristics and descriptors.
    public var services: [Service]
    /// The 16-byte Database Hash, or nil when the peer has none: such a cache can never
    /// be validated and is rediscovered on every connection.
    public var databaseHash: [UInt8]?

    /// A cache of `services` as they were when `databaseHash` was read.
    public init(services: [Service], databaseHash: [UInt8]?) {
        self.services = services
        self.databaseHash = databaseHash
    }
}
