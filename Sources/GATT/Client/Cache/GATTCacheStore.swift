/// Where a client keeps what it discovered, per peer, across connections and restarts
/// (Vol 3 Part G §2.5.2 attribute caching).
public protocol GATTCacheStore: Sendable {
    /// The database stored for `peer`, if any.
    func database(for peer: PeerIdentity) throws -> DiscoveredDatabase?
    /// Stores (or replaces) the database for `peer`.
    func store(_ database: DiscoveredDatabase, for peer: PeerIdentity) throws
    /// Forgets `peer` (bond removed, or its database can no longer be trusted).
    func removeDatabase(for peer: PeerIdentity) throws
}
