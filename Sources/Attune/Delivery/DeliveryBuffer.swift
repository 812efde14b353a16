import BluetoothCore
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
///
/// The queue and its states are BluetoothCore's ``BoundedBuffer`` (pausing the producer,
/// then dropping the oldest after ``BoundedBuffer/stalled()``); this class adds the lock,
/// the consumer's task and the producer's bounded wait.
final class DeliveryBuffer<Element: LossReporting>: Sendable {
    /// What wakes the consumer: values, or the end (nil: normal, else the error).
    enum Delivery {
        /// Values; empty when the consumer should look again (the stream just ended).
        case batch([Element])
        case end(AttuneError?)
    }

    typealias Taker = UnsafeContinuation<Delivery, Never>

    private struct State {
        var buffer: BoundedBuffer<Element, Taker, AttuneError>
        /// The producer waiting for room, with the number its stall timer knows it by.
        var roomWaiter: (id: UInt64, continuation: UnsafeContinuation<Bool, Never>)?
        var nextWaiter: UInt64 = 0

        /// The waiting producer, taken out to be released outside the lock.
        mutating func takeRoomWaiter() -> UnsafeContinuation<Bool, Never>? {
            defer { roomWaiter = nil }
            return roomWaiter?.continuation
        }
    }

    /// Values carry the losses before them in ``LossReporting/lostBefore``.
    private static var carrier: LossCarrier<Element> {
        LossCarrier(carry: { value, lost in
            value.lostBefore += lost
            return true
        }, carried: { $0.lostBefore })
    }

    let capacity: Int
    private let state: Mutex<State>
    /// Told of every value dropped, for the owner's statistics.
    private let onLoss: @Sendable (Int) -> Void
    /// Told once when the consumer goes away, so the producer stops offering.
    private let onTermination: @Sendable () -> Void

    init(capacity: Int, onLoss: @escaping @Sendable (Int) -> Void = { _ in },
         onTermination: @escaping @Sendable () -> Void = {}) {
        self.capacity = max(1, capacity)
        state = Mutex(State(buffer: BoundedBuffer(capacity: capacity, carrier: Self.carrier)))
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
        let (taker, batch, room, dropped) = state.withLock { s -> (Taker?, [Element], Bool, Bool) in
            switch s.buffer.push(value, whenFull: .pauseProducer) {
            case .resume(let taker, let batch): (taker, batch, true, false)
            case .queued(let hasRoom): (nil, [], hasRoom, false)
            case .queuedDroppingOldest: (nil, [], true, true)
            // Ended or consumer gone: nothing to wait for.
            case .closed, .dropped, .refused: (nil, [], true, false)
            }
        }
        if dropped { onLoss(1) }
        taker?.resume(returning: .batch(batch))
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
                if s.buffer.producerMayGoOn { return true }
                s.roomWaiter = (id, continuation)
                return false
            }
            if ready {
                continuation.resume(returning: true)
                return
            }
            // Holds the buffer strongly, for at most the stall limit: a weak reference
            // would give the buffer a side table for good, and every retain of it (one
            // per value offered) would take the runtime's slow path from then on.
            Task {
                try? await Task.sleep(for: stallLimit)
                self.stall(id)
            }
        }
    }

    private func stall(_ id: UInt64) {
        let waiter = state.withLock { s -> UnsafeContinuation<Bool, Never>? in
            guard let w = s.roomWaiter, w.id == id else { return nil }
            s.roomWaiter = nil
            _ = s.buffer.stalled()
            return w.continuation
        }
        waiter?.resume(returning: false)
    }

    /// Ends the stream after what is queued: normally (nil) or with `error`.
    func finish(throwing error: AttuneError? = nil) {
        let (resumed, waiter) = state.withLock { s -> ((Taker, [Element])?, UnsafeContinuation<Bool, Never>?) in
            guard s.buffer.isOpen else { return (nil, nil) }
            return (s.buffer.finish(failure: error), s.takeRoomWaiter())
        }
        if case let (taker, batch)? = resumed { taker.resume(returning: .batch(batch)) }
        waiter?.resume(returning: true)
    }

    /// Whether the consumer went away.
    var isTerminated: Bool {
        state.withLock { s in
            if case .terminated = s.buffer.state { return true }
            return false
        }
    }

    // MARK: Consumer

    /// Everything queued, waiting for at least one value; nil once the stream ended and
    /// was drained. Throws the error the stream ended with.
    func take() async throws(AttuneError) -> [Element]? {
        while true {
            // Most takes find values waiting: no suspension for them.
            let ready = state.withLock { s in Self.look(&s) }
            if case let (delivery, waiter)? = ready {
                waiter?.resume(returning: true)
                if let values = try Self.values(delivery) { return values }
                continue
            }
            // Like AsyncStream's, iteration ends when the consuming task is cancelled.
            if Task.isCancelled { return nil }
            let delivery = await withTaskCancellationHandler {
                await withUnsafeContinuation { (taker: Taker) in
                    let ready = state.withLock { s -> (Delivery, UnsafeContinuation<Bool, Never>?)? in
                        if let ready = Self.look(&s) { return ready }
                        if Task.isCancelled { return (.end(nil), nil) }
                        _ = s.buffer.take(orWait: taker)
                        return nil
                    }
                    if case let (delivery, waiter)? = ready {
                        waiter?.resume(returning: true)
                        taker.resume(returning: delivery)
                    }
                }
            } onCancel: {
                state.withLock { $0.buffer.cancelWaiting() }?.resume(returning: .end(nil))
            }
            if let values = try Self.values(delivery) { return values }
            if Task.isCancelled { return nil }
        }
    }

    /// Takes back the storage of a batch ``take()`` returned, once the consumer is done
    /// with it, for a later batch: a steady stream then allocates no arrays. `batch` is
    /// left empty.
    func recycle(_ batch: inout [Element]) {
        // Emptied outside the lock: releasing the values may free their buffers.
        batch.removeAll(keepingCapacity: true)
        state.withLock { $0.buffer.recycle(&batch) }
    }

    /// What is ready for the consumer without waiting (taking makes room: the waiting
    /// producer is released); nil when nothing is.
    private static func look(_ s: inout State) -> (Delivery, UnsafeContinuation<Bool, Never>?)? {
        switch s.buffer.take(orWait: nil) {
        case .elements(let batch): (.batch(batch), s.takeRoomWaiter())
        case .end(let error): (.end(error), nil)
        case .waiting: nil
        }
    }

    /// The values to return; nil to look again (an empty wake-up); throws the end's error.
    private static func values(_ delivery: Delivery) throws(AttuneError) -> [Element]?? {
        switch delivery {
        case .batch(let batch): return batch.isEmpty ? nil : .some(batch)
        case .end(let error?): throw error
        case .end(nil): return .some(nil)
        }
    }

    /// The consumer is gone: drop everything and release a waiting producer.
    func terminate() {
        let (first, waiter) = state.withLock { s -> (Bool, UnsafeContinuation<Bool, Never>?) in
            guard s.buffer.terminate() else { return (false, nil) }
            return (true, s.takeRoomWaiter())
        }
        waiter?.resume(returning: true)
        if first { onTermination() }
    }
}
