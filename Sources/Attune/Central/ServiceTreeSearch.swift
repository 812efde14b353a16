extension [Service] {
    /// The index of the first service that starts at `start`, by binary search.
    ///
    /// Service trees are kept in start-handle order (``GATTCache`` sorts its services,
    /// and the revealed tree is kept sorted as it grows), and a peer may declare a
    /// service at every handle: a scan per call made walking such a tree, a service at
    /// a time, quadratic (131,070 services kept the actor busy past every deadline).
    func firstIndex(startingAt start: AttributeHandle) -> Int? {
        let index = insertionIndex(for: start)
        return index < count && self[index].startHandle == start ? index : nil
    }

    /// Where a service starting at `start` goes to keep the order: after every service
    /// that starts before it.
    func insertionIndex(for start: AttributeHandle) -> Int {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if self[mid].startHandle < start { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
