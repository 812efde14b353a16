import Synchronization

/// The bounded buffer between one producer (a manager's actor, a scan callback) and one
/// application consumer, shared by the public streams.
///
/// A producer ``offer(_:)``s values; when the buffer is full it learns so, and pauses the
/// link it reads from (``waitForRoom(stallLimit:)``). Only when the consumer stays away
/// for longer than the stall limit does the buffer start dropping: the oldest waiting
/// value goes, so the consumer sees the newest data, and the value after it carries the
/// count in ``LossReporting/lostBefore``. Since a full buffer always holds that value,
/// the consumer learns of every loss with the first value it takes. Nothing is lost
/// silently.
final class DeliveryBuffer<Element: LossReporting>: Sendable {
    private struct State {
        /// Waiting values from `head` on; the slots before it were dropped.
        var queue: [Element] = []
        var head = 0
        var count: Int { queue.count - head }
        /// Dropping instead of pausing, until the consumer empties the queue.
        var overflowing = false
        var ended = false
        var error: AttuneError?
        /// The consumer is gone (its stream and iterator were released).
        var terminated = false
        var taker: UnsafeContinuation<Void, Never>?
        var roomWaiter: (id: UInt64, continuation: UnsafeContinuation<Bool, Never>)?
        var nextWaiter: UInt64 = 0
    }

    let capacity: Int
    private let state = Mutex(State())
    /// Told of every value dropped, for the owner's statistics.
    private let onLoss: @Sendable (Int) -> Void
    /// Told once when the consumer goes away, so the producer stops offering.
    private let onTermination: @Sendable () -> Void

    init(capacity: Int, onLoss: @escaping @Sendable (Int) -> Void = { _ in },
         onTermination: @escaping @Sendable () -> Void = {}) {
        self.capacity = max(1, capacity)
        self.onLoss = onLoss
        self.onTermination = onTermination
    }

    // MARK: Producer

    /// Queues a value. Returns false when the buffer is now full: the producer should
    /// pause its source and ``waitForRoom(stallLimit:)``. While overflowing, the oldest
    /// waiting value is dropped to make room and counted (and this returns true: there
    /// is nothing to wait for).
    @discardableResult
    func offer(_ value: Element) -> Bool {
        var value = value
        let (taker, room, dropped) = state.withLock { s -> (UnsafeContinuation<Void, Never>?, Bool, Bool) in
            guard !s.ended, !s.terminated else { return (nil, true, false) }
            var dropped = false
            if s.overflowing && s.count >= capacity {
                // The next oldest inherits the count (the new value, in a buffer of one).
                let carried = s.queue[s.head].lostBefore + 1
                s.head += 1
                if s.count > 0 { s.queue[s.head].lostBefore += carried } else { value.lostBefore += carried }
                dropped = true
                if s.head >= capacity {
                    s.queue.removeFirst(s.head)
                    s.head = 0
                }
            }
            s.queue.append(value)
            let taker = s.taker
            s.taker = nil
            return (taker, s.count < capacity || s.overflowing, dropped)
        }
        if dropped { onLoss(1) }
        taker?.resume()
        return room
    }

    /// Returns true once the consumer made room (or left, or the buffer ended); false
    /// when `stallLimit` passed first, after which the buffer drops and counts instead
    /// of holding the producer up.
    nonisolated(nonsending) func waitForRoom(stallLimit: Duration) async -> Bool {
        let id = state.withLock { s -> UInt64 in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        return await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
            let ready = state.withLock { s -> Bool in
                if s.ended || s.terminated || s.overflowing || s.count < capacity { return true }
                s.roomWaiter = (id, continuation)
                return false
            }
            if ready {
                continuation.resume(returning: true)
                return
            }
            Task { [weak self] in
                try? await Task.sleep(for: stallLimit)
                self?.stall(id)
            }
        }
    }

    private func stall(_ id: UInt64) {
        let waiter = state.withLock { s -> UnsafeContinuation<Bool, Never>? in
            guard let w = s.roomWaiter, w.id == id else { return nil }
            s.roomWaiter = nil
            s.overflowing = true
            return w.continuation
        }
        waiter?.resume(returning: false)
    }

    /// Ends the stream after what is queued: normally (nil) or with `error`.
    func finish(throwing error: AttuneError? = nil) {
        let (taker, waiter) = state.withLock { s -> (UnsafeContinuation<Void, Never>?, UnsafeContinuation<Bool, Never>?) in
            guard !s.ended else { return (nil, nil) }
            s.ended = true
            s.error = error
            defer { s.taker = nil; s.roomWaiter = nil }
            return (s.taker, s.roomWaiter?.continuation)
        }
        taker?.resume()
        waiter?.resume(returning: true)
    }

    /// Whether the consumer went away.
    var isTerminated: Bool { state.withLock { $0.terminated } }

    // MARK: Consumer

    /// Everything queued, waiting for at least one value; nil once the stream ended and
    /// was drained. Throws the error the stream ended with.
    func take() async throws(AttuneError) -> [Element]? {
        while true {
            let outcome = state.withLock { s -> (batch: [Element]?, done: Bool, error: AttuneError?, waiter: UnsafeContinuation<Bool, Never>?) in
                if s.count > 0 {
                    let batch = s.head == 0 ? s.queue : Array(s.queue[s.head...])
                    s.queue = []
                    s.head = 0
                    s.queue.reserveCapacity(min(batch.count, capacity))
                    s.overflowing = false
                    defer { s.roomWaiter = nil }
                    return (batch, false, nil, s.roomWaiter?.continuation)
                }
                guard s.ended else { return (nil, false, nil, nil) }
                defer { s.error = nil }
                return (nil, true, s.error, nil)
            }
            outcome.waiter?.resume(returning: true)
            if let batch = outcome.batch { return batch }
            if outcome.done {
                if let error = outcome.error { throw error }
                return nil
            }
            // Like AsyncStream's, iteration ends when the consuming task is cancelled.
            if Task.isCancelled { return nil }
            await withTaskCancellationHandler {
                await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                    let ready = state.withLock { s -> Bool in
                        if s.count > 0 || s.ended || Task.isCancelled { return true }
                        s.taker = continuation
                        return false
                    }
                    if ready { continuation.resume() }
                }
            } onCancel: {
                let taker = state.withLock { s -> UnsafeContinuation<Void, Never>? in
                    defer { s.taker = nil }
                    return s.taker
                }
                taker?.resume()
            }
            if Task.isCancelled { return nil }
        }
    }

    /// The consumer is gone: drop everything and release a waiting producer.
    func terminate() {
        let (first, waiter) = state.withLock { s -> (Bool, UnsafeContinuation<Bool, Never>?) in
            guard !s.terminated else { return (false, nil) }
            s.terminated = true
            s.queue = []
            s.head = 0
            defer { s.roomWaiter = nil }
            return (true, s.roomWaiter?.continuation)
        }
        waiter?.resume(returning: true)
        if first { onTermination() }
    }
}
