import ATT

/// The server's connected clients: a dense array searched by id, so the per-request path
/// neither hashes nor copies a client's state (states are modified in place by slot).
struct ConnectionTable: Sendable {
    private(set) var ids: [ConnectionID] = []
    private var states: [GATTLink] = []

    /// The slot of `id`; connections are few, and a linear scan beats hashing for them.
    @inline(__always)
    func slot(of id: ConnectionID) -> Int? {
        var i = 0
        while i < ids.count {
            if ids[i] == id { return i }
            i &+= 1
        }
        return nil
    }

    /// In-place access by slot.
    subscript(slot slot: Int) -> GATTLink {
        _read { yield states[slot] }
        _modify { yield &states[slot] }
    }

    /// Dictionary-like access for the paths that are not hot; setting nil removes.
    subscript(id: ConnectionID) -> GATTLink? {
        get { slot(of: id).map { states[$0] } }
        set {
            if let s = slot(of: id) {
                if let newValue { states[s] = newValue } else { _ = removeValue(forKey: id) }
            } else if let newValue {
                ids.append(id)
                states.append(newValue)
            }
        }
    }

    @discardableResult
    mutating func removeValue(forKey id: ConnectionID) -> GATTLink? {
        guard let s = slot(of: id) else { return nil }
        ids.remove(at: s)
        return states.remove(at: s)
    }

    var keys: [ConnectionID] { ids }
    var values: [GATTLink] { states }

    /// The earliest deadline of any client: a transaction timeout, an application
    /// answer, a discovery. Read after every output the manager flushes, so each link's
    /// fields are read in place: iterating the links, or calling their getters, copies
    /// each link's or client's whole state (and retains all it holds) per call. Three
    /// optionals a link, compared one by one, as a literal array of them would be
    /// allocated on each call.
    var earliestDeadline: MonotonicTime? {
        var earliest: MonotonicTime?
        func consider(_ d: MonotonicTime?) {
            if let d, earliest.map({ d < $0 }) ?? true { earliest = d }
        }
        for i in states.indices {
            consider(states[i].bearer.deadline)
            consider(states[i].pending?.deadline)
            if states[i].client.active?.cancelled == false { consider(states[i].client.active?.discoveryDeadline) }
        }
        return earliest
    }

    func first(where predicate: (ConnectionID, GATTLink) -> Bool) -> ConnectionID? {
        for i in ids.indices where predicate(ids[i], states[i]) { return ids[i] }
        return nil
    }

    func compactMap<T>(_ transform: (ConnectionID, GATTLink) -> T?) -> [T] {
        ids.indices.compactMap { transform(ids[$0], states[$0]) }
    }
}
