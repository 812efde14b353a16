/// The bytes a ``UserlandHost`` has produced for its stream and the stream has not yet
/// taken, in order. Writes never wait: what a write does not take stays here until the
/// loop sees the stream writable. Bounded by the host (``UserlandHost/outboxLimit``).
struct H4Outbox {
    /// Bytes waiting, from `head` on; the taken prefix is dropped in large steps so that
    /// a slow stream does not cost a copy per write.
    private var bytes: [UInt8] = []
    private var head = 0

    /// How many bytes wait to be written.
    var pendingCount: Int { bytes.count - head }

    var isEmpty: Bool { head == bytes.count }

    /// Queues packets that lie back to back, so they go out in one piece.
    mutating func append(_ packets: ArraySlice<UInt8>) {
        bytes.append(contentsOf: packets)
    }

    /// Writes what waits, as far as `write` takes it now (it returns how much, 0 for
    /// none). Returns whether everything went out.
    mutating func flush(_ write: (UnsafeRawBufferPointer) throws -> Int) rethrows -> Bool {
        while head < bytes.count {
            let start = head
            let written = try bytes.withUnsafeBytes { raw in
                try write(UnsafeRawBufferPointer(rebasing: raw[start...]))
            }
            if written == 0 { break }
            head += written
        }
        if isEmpty {
            bytes.removeAll(keepingCapacity: bytes.capacity <= Self.compactionStep)
            head = 0
            return true
        }
        if head >= Self.compactionStep {
            bytes.removeFirst(head)
            head = 0
        }
        return false
    }

    /// Forgets everything queued: the stream failed or closed.
    mutating func removeAll() {
        bytes = []
        head = 0
    }

    /// How many written bytes may sit in front of the unwritten ones before they are dropped.
    private static let compactionStep = 64 * 1024
}
