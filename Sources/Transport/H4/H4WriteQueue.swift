/// Packets on their way to the controller that the stream did not take at once.
///
/// The host writes each packet as it produces it, under its lock, without blocking; when
/// the descriptor is full (a controller slow to read) the rest waits here, in order, and
/// leaves when the event loop reports the descriptor writable. Blocking instead, under the
/// host's lock, would deadlock against a peer that is itself blocked writing to us.
///
/// Flow control bounds what the host produces (no more commands or ACL packets
/// outstanding than the controller allows), so the queue stays short. The cap is a
/// backstop: a push past it fails, and the host stops with a clear error instead of
/// growing without bound.
struct H4WriteQueue: Sendable {
    /// The most packets that may wait.
    let capacity: Int
    private var packets: [[UInt8]] = []
    private var head = 0
    /// How much of the packet at `head` is already written.
    private var written = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    var isEmpty: Bool { head == packets.count }

    /// The packets waiting, the one partly written included.
    var count: Int { packets.count - head }

    /// Queues a packet. `alreadyWritten` bytes of it left at once, which only happens
    /// when nothing was waiting. Returns false, queueing nothing, when the queue is full.
    mutating func push(_ packet: [UInt8], alreadyWritten: Int = 0) -> Bool {
        assert(alreadyWritten == 0 || isEmpty, "only a packet written straight away can be partly written")
        guard count < capacity else { return false }
        if isEmpty { written = alreadyWritten }
        packets.append(packet)
        return true
    }

    /// Writes what `write` accepts, oldest first, until the queue is empty or a write
    /// takes less than it was offered (the descriptor is full). `write` returns how many
    /// bytes it took.
    mutating func drain<Failure: Error>(_ write: (ArraySlice<UInt8>) throws(Failure) -> Int) throws(Failure) {
        while head < packets.count {
            let remaining = packets[head][written...]
            let taken = try write(remaining)
            written += taken
            guard taken == remaining.count else { return }
            head += 1
            written = 0
            // Compact now and then so the array does not keep written packets.
            if head >= 64 && head * 2 >= packets.count {
                packets.removeFirst(head)
                head = 0
            }
        }
        packets.removeAll(keepingCapacity: true)
        head = 0
    }

    /// Empties the queue, returning how many packets were dropped unsent.
    mutating func removeAll() -> Int {
        defer {
            packets = []
            head = 0
            written = 0
        }
        return count
    }
}
