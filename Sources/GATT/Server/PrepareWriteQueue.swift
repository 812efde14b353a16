import ATT

/// One client's queue of Prepare Write Requests (Vol 3 Part F §3.4.6), bounded so a
/// hostile client cannot grow it without limit.
public struct PrepareWriteQueue: Hashable, Sendable {
    /// One queued part.
    public struct Entry: Hashable, Sendable {
        public var handle: AttributeHandle
        public var offset: UInt16
        public var value: [UInt8]
    }

    /// Most entries the queue accepts; the next gets Prepare Queue Full (0x09).
    public let limit: Int
    public private(set) var entries: [Entry] = []

    public init(limit: Int = 30) { self.limit = max(1, limit) }

    public var isEmpty: Bool { entries.isEmpty }
    public var isFull: Bool { entries.count >= limit }

    /// Appends a part; false when the queue is full.
    public mutating func append(handle: AttributeHandle, offset: UInt16, value: ArraySlice<UInt8>) -> Bool {
        guard !isFull else { return false }
        entries.append(Entry(handle: handle, offset: offset, value: Array(value)))
        return true
    }

    /// Empties the queue (after an execute or cancel, or on disconnection).
    public mutating func removeAll() { entries.removeAll(keepingCapacity: true) }

    /// Distinct handles in first-queued order.
    public var handles: [AttributeHandle] {
        var seen: Set<AttributeHandle> = []
        return entries.compactMap { seen.insert($0.handle).inserted ? $0.handle : nil }
    }
}
