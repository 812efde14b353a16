/// A first-in first-out queue in one growable ring of storage: O(1) at both ends, and no
/// per-message allocation once it has grown to the traffic it carries.
struct OutboundRing<Element> {
    private var storage: [Element?] = []
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func append(_ element: Element) {
        if count == storage.count { grow() }
        storage[(head + count) % storage.count] = element
        count += 1
    }

    /// Puts an element back in front of the others (a message taken out but not sent).
    mutating func prepend(_ element: Element) {
        if count == storage.count { grow() }
        head = (head - 1 + storage.count) % storage.count
        storage[head] = element
        count += 1
    }

    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil
        head = (head + 1) % storage.count
        count -= 1
        return element
    }

    private mutating func grow() {
        let newCapacity = Swift.max(16, storage.count * 2)
        var grown: [Element?] = []
        grown.reserveCapacity(newCapacity)
        for index in 0..<count { grown.append(storage[(head + index) % storage.count]) }
        grown.append(contentsOf: repeatElement(nil, count: newCapacity - count))
        storage = grown
        head = 0
    }
}
