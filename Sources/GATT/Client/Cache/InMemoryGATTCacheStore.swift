import Synchronization

/// A cache that lives as long as the process: the default for tests and short-lived tools.
public final class InMemoryGATTCacheStore: GATTCacheStore {
    private let entries = Mutex<[PeerIdentity: DiscoveredDatabase]>([:])

    public init() {}

    public func database(for peer: PeerIdentity) -> DiscoveredDatabase? {
        entries.withLock { $0[peer] }
    }

    public func store(_ database: DiscoveredDatabase, for peer: PeerIdentity) {
        entries.withLock { $0[peer] = database }
    }

    public func removeDatabase(for peer: PeerIdentity) {
        _ = entries.withLock { $0.removeValue(forKey: peer) }
    }
}
