import Transport

/// Signed Write Commands from bonded centrals (Vol 3 Part G §4.9.2, Vol 3 Part H §2.4.5):
/// verified with the CSRK the central distributed when it bonded, and refused (dropped, as
/// commands are) when the signature is wrong or the counter does not grow past the last
/// one accepted. That counter is kept with the bond, so a command replayed to the next
/// process is refused as well.
extension PeripheralManager {
    /// Hands a Signed Write Command to the server, after giving it the central's key on the
    /// link's first one, and saves the counter it accepted before the write is reported.
    func verifySignedWrite(_ pdu: [UInt8], from id: ConnectionID, at now: MonotonicTime, into out: inout GATTServerOutput) {
        if case .unchecked = connected[id]?.signing { loadSigningKey(for: id) }
        server.receive(pdu[...], from: id, at: now, into: &out)
        guard case let .bonded(address, type, kept)? = connected[id]?.signing,
              let accepted = server.lastSignCounter(of: id), accepted != kept else { return }
        // Saved before the write reaches the application: a command accepted here is a
        // replay to any later process. A store that cannot be written leaves the counter
        // in this link's memory only.
        try? store.update(address: address, type: type) { record in
            if let stored = record.bond?.peerSignCounter, stored >= accepted { return }
            record.bond?.peerSignCounter = accepted
        }
        connected[id]?.signing = .bonded(address: address, type: type, kept: accepted)
    }

    /// Looks the central up among the bonds once per link: by its address, its identity
    /// address or its resolvable private address.
    private func loadSigningKey(for id: ConnectionID) {
        guard let entry = connected[id] else { return }
        let keeper = StoreBondKeeper(store: store)
        guard let record = keeper.record(for: entry.central.address, type: entry.central.addressType),
              let bond = record.bond, let key = bond.signatureResolvingKey, key.count == 16 else {
            connected[id]?.signing = .unbonded
            return
        }
        server.setSigningKey(key, authenticated: bond.isAuthenticated, lastCounter: bond.peerSignCounter, for: id)
        connected[id]?.signing = .bonded(address: record.address, type: record.addressType, kept: bond.peerSignCounter)
    }
}
