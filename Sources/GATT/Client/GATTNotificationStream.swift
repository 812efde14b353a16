import Synchronization

/// Notifications for an `AsyncSequence` consumer, handed over in batches.
///
/// A per-element `AsyncStream` costs a lock and often a task switch for every value; at
/// sensor rates that dominates. Here the producer appends whole batches under one lock,
/// and the consumer swaps the entire pending buffer out at once and then iterates it
/// locally, so the per-value cost is a plain array read.
///
/// Memory is bounded: past `bufferLimit` pending values the oldest are dropped and
/// counted in ``droppedCount`` (a consumer that cannot keep up loses the stalest data,
/// never the newest).
public final class GATTNotificationStream: AsyncSequence, Sendable {
    public typealias Element = GATTNotification

    struct State {
        var pending: [GATTNotification] = []
        var waiter: CheckedContinuation<[GATTNotification]?, Never>?
        var finished = false
        var dropped = 0
    }

    let state = Mutex(State())
    public let bufferLimit: Int

    public init(bufferLimit: Int = 1 << 16) {
        self.bufferLimit = Swift.max(1, bufferLimit)
    }

    /// Values yielded and not yet taken by the consumer; a producer that must not drop
    /// anything can wait while this is high.
    public var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Values dropped because the consumer fell more than ``bufferLimit`` behind.
    public var droppedCount: Int { state.withLock { $0.dropped } }

    /// Hands a batch to the consumer.
    public func yield(contentsOf batch: [GATTNotification]) {
        guard !batch.isEmpty else { return }
        let waiter: CheckedContinuation<[GATTNotification]?, Never>? = state.withLock { s in
            guard !s.finished else { return nil }
            if let w = s.waiter {
                s.waiter = nil
                return w
            }
            s.pending.append(contentsOf: batch)
            let excess = s.pending.count - bufferLimit
            if excess > 0 {
                s.pending.removeFirst(excess)
                s.dropped += excess
            }
            return nil
        }
        waiter?.resume(returning: batch)
    }

    /// Hands one value to the consumer.
    public func yield(_ notification: GATTNotification) { yield(contentsOf: [notification]) }

    /// Ends the sequence once the pending values are consumed.
    public func finish() {
        let waiter = state.withLock { s -> CheckedContinuation<[GATTNotification]?, Never>? in
            s.finished = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next batch: what is pending, or the next one yielded; nil when finished.
    func nextBatch() async -> [GATTNotification]? {
        await withCheckedContinuation { (c: CheckedContinuation<[GATTNotification]?, Never>) in
            let ready: [GATTNotification]?? = state.withLock { s in
                if !s.pending.isEmpty {
                    defer { s.pending = [] }
                    return .some(s.pending)
                }
                if s.finished { return .some(nil) }
                s.waiter = c
                return .none
            }
            if let ready { c.resume(returning: ready) }
        }
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let stream: GATTNotificationStream
        var batch: [GATTNotification] = []
        var index = 0

        public mutating func next() async -> GATTNotification? {
            if index < batch.count {
                defer { index &+= 1 }
                return batch[index]
            }
            guard let next = await stream.nextBatch() else { return nil }
            batch = next
            index = 1
            return batch.first
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: self) }
}
