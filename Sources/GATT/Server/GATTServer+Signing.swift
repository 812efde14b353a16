extension GATTServer {
    /// The highest sign counter accepted from a client's Signed Write Commands, nil
    /// before the first: the owner keeps it with the bond, so a replay is refused in the
    /// next process too.
    public func lastSignCounter(of id: ConnectionID) -> UInt32? {
        connections[id]?.lastSignCounter
    }
}
