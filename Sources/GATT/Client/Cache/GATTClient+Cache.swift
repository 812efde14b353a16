extension GATTClient {
    /// A client that starts from what `store` remembers of `peer`: with a Database Hash
    /// on record, start-up only reads the server's hash and skips discovery when it
    /// matches.
    public init(configuration: GATTClientConfiguration, cache store: any GATTCacheStore, peer: PeerIdentity) {
        self.init(configuration: configuration, database: (try? store.database(for: peer)) ?? DiscoveredDatabase())
    }

    /// Saves what the client knows of the server; call it on ``GATTClientEvent/ready(_:)``
    /// and ``GATTClientEvent/servicesChanged(invalidated:discovered:)``.
    public func save(to store: any GATTCacheStore, peer: PeerIdentity) throws {
        try store.store(database, for: peer)
    }
}
