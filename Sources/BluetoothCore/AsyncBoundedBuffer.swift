import Synchronization

/// A ``BoundedBuffer`` behind a lock, for a producer that never waits (a loop thread, a
/// radio) and one consumer task that takes one element at a time: the MQTT client's
/// streams and the userland host's events.
///
/// Taking one at a time keeps what waits within the limit the producer's pushes are
/// checked against, so the bound is the buffer's and not twice it. Iteration ends, like
/// `AsyncStream`'s, when the buffer finished and was drained or the consuming task is
/// cancelled; a second consumer while one waits gets nil at once.
public final class AsyncBoundedBuffer<Element: Sendable>: Sendable {
    /// A waiting consumer, with the number its cancellation handler knows it by.
    public struct Taker: Sendable {
        let id: UInt64
        let continuation: UnsafeContinuation<Element?, Never>
    }

    private struct State {
        var buffer: BoundedBuffer<Element, Taker, Never>
        var nextTaker: UInt64 = 0
    }

    /// What became of a pushed element.
    public enum Admission: Sendable, Hashable {
        /// Queued, or handed to the waiting consumer.
        case queued
        /// Dropped and counted (``BoundedBuffer/LossPolicy/dropNewest``).
        case dropped
        /// Full, and not queued (``BoundedBuffer/LossPolicy/stop``): the producer stops loudly.
        case refused
        /// The buffer finished: discarded.
        case closed
    }

    private let state: Mutex<State>

    /// - Parameters:
    ///   - capacity: the limit a push is checked against unless it names its own.
    ///   - carrier: how the element type reports losses to the consumer.
    public init(capacity: Int, carrier: LossCarrier<Element> = .none) {
        state = Mutex(State(buffer: BoundedBuffer(capacity: capacity, carrier: carrier)))
    }

    /// Queues `element`, or hands it to the waiting consumer; past `limit` (default the
    /// capacity) elements waiting, `policy` decides. Never waits.
    @discardableResult
    public func push(_ element: Element, limit: Int? = nil,
                     whenFull policy: BoundedBuffer<Element, Taker, Never>.LossPolicy) -> Admission {
        let (admission, resumed) = state.withLock { s -> (Admission, (Taker, Element)?) in
            switch s.buffer.push(element, limit: limit, whenFull: policy) {
            // A waiting consumer means nothing waits: the batch is the one element, after
            // a loss marker only when one was due, which one-at-a-time takes rule out.
            case .resume(let taker, let batch): (.queued, (taker, batch[batch.count - 1]))
            case .queued, .queuedDroppingOldest: (.queued, nil)
            case .dropped: (.dropped, nil)
            case .refused: (.refused, nil)
            case .closed: (.closed, nil)
            }
        }
        if case let (taker, element)? = resumed { taker.continuation.resume(returning: element) }
        return admission
    }

    /// Ends the stream once what waits has been taken.
    public func finish() {
        state.withLock { $0.buffer.finish() }?.0.continuation.resume(returning: nil)
    }

    /// How many elements wait.
    public var count: Int { state.withLock { $0.buffer.count } }

    /// Drops that no element carried, since the last call (``LossCarrier/none``).
    public func takeLost() -> Int { state.withLock { $0.buffer.takeLost() } }

    /// The next element, waiting for one; nil once the buffer finished and was drained,
    /// when the task is cancelled, or while another consumer waits.
    public func next() async -> Element? {
        if let ready = state.withLock({ Self.takeReady(&$0.buffer) }) { return ready }
        let id = state.withLock { s -> UInt64 in
            s.nextTaker &+= 1
            return s.nextTaker
        }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Element?, Never>) in
                let immediate = state.withLock { s -> Element?? in
                    if let ready = Self.takeReady(&s.buffer) { return .some(ready) }
                    // Cancelled before the handler could find a consumer to release.
                    if Task.isCancelled { return .some(nil) }
                    if case .end = s.buffer.take(orWait: Taker(id: id, continuation: continuation)) { return .some(nil) }
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            state.withLock { s in s.buffer.cancelWaiting { taker in taker.id == id } }?.continuation.resume(returning: nil)
        }
    }

    /// The next element if one is ready, `.some(nil)` at the end, nil to wait.
    private static func takeReady(_ buffer: inout BoundedBuffer<Element, Taker, Never>) -> Element?? {
        switch buffer.take(orWait: nil, atMost: 1) {
        case .elements(let batch): .some(batch[0])
        case .end: .some(nil)
        case .waiting: nil
        }
    }
}
