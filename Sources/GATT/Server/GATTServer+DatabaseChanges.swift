import ATT

extension GATTServer {
    /// Changes the database and tells clients (Vol 3 Part G §2.5.2, §7.1): `change`
    /// returns the affected handle range (nil when nothing structural changed). Clients
    /// with robust caching become change-unaware; clients subscribed to Service Changed
    /// get an indication of the range; bonded clients not connected are marked
    /// change-unaware in the store.
    public mutating func modifyDatabase(at now: MonotonicTime, into out: inout GATTServerOutput,
                                        _ change: (inout AttributeDatabase) throws(DatabaseError) -> AttributeHandleRange?)
        throws(GATTServerError) {
        var db = core.database
        let range: AttributeHandleRange?
        do { range = try change(&db) } catch { throw .database(error) }
        core.database = db
        guard let range else { return }
        let connected = Set(connections.values.compactMap(\.peer))
        for peer in store.peers where !connected.contains(peer) {
            if var s = store.state(for: peer) {
                s.changeAware = false
                store.save(s, for: peer)
            }
        }
        for id in connections.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            connections[id]!.awareness = .unaware
            queueServiceChanged(range, on: id, at: now, into: &out)
            persistState(of: id)
        }
    }

    /// Queues a Service Changed indication of `range` when the client subscribed to it.
    mutating func queueServiceChanged(_ range: AttributeHandleRange, on id: ConnectionID, at now: MonotonicTime,
                                      into out: inout GATTServerOutput) {
        guard let valueHandle = core.database.first(ofType: GATTAttributeType.serviceChanged)?.handle,
              let c = core.database.characteristic(valueHandle: valueHandle),
              let client = connections[id], core.configuration(of: c, client).contains(.indication) else { return }
        var value: [UInt8] = []
        appendHandle(range.start, to: &value)
        appendHandle(range.end, to: &value)
        let indication = IndicationID(rawValue: core.makeID())
        connections[id]!.indications.append(QueuedIndication(id: indication, handle: valueHandle, value: value,
                                                             isServiceChanged: true))
        pumpIndications(on: id, at: now, into: &out)
    }
}
