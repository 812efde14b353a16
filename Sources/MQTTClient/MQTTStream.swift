import Synchronization

/// One element of an ``MQTTStream``: a value, or how many values were dropped at this
/// point because the consumer fell behind. Nothing is dropped without saying so.
public enum MQTTStreamElement<Value: Sendable>: Sendable {
    case value(Value)
    /// `count` values that arrived here while the buffer was full were dropped.
    case dropped(count: Int)

    /// The value, or nil for a drop report.
    public var value: Value? {
        if case .value(let value) = self { return value }
        return nil
    }
}

extension MQTTStreamElement: Equatable where Value: Equatable {}

/// A bounded single-consumer stream from the loop thread to a task.
///
/// When `capacity` values wait, newer ones are dropped and counted; the count comes out
/// as one ``MQTTStreamElement/dropped(count:)`` in the place the gap is, before the next
/// value. So a slow consumer costs bounded memory, and sees exactly what it missed.
/// One consumer at a time: a second concurrent `next()` ends at once with nil.
public struct MQTTStream<Value: Sendable>: AsyncSequence, Sendable {
    public typealias Element = MQTTStreamElement<Value>

    let buffer: Buffer

    init(capacity: Int) { buffer = Buffer(capacity: capacity) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let buffer: Buffer
        public mutating func next() async -> Element? { await buffer.take() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(buffer: buffer) }

    final class Buffer: Sendable {
        private struct State {
            var items = OutboundRing<Element>()
            /// Drops not yet reported: they follow every item already in `items`.
            var droppedSinceLast = 0
            var totalDropped = 0
            var waiter: CheckedContinuation<Element?, Never>?
            var waiterID: UInt64 = 0
            var finished = false
        }

        let capacity: Int
        private let state = Mutex(State())

        init(capacity: Int) { self.capacity = Swift.max(1, capacity) }

        /// Values dropped so far.
        var dropped: Int { state.withLock { $0.totalDropped } }

        /// Offers a value from the producer; it is dropped and counted when the buffer is full.
        func offer(_ value: Value) {
            let waiter = state.withLock { state -> CheckedContinuation<Element?, Never>? in
                guard !state.finished else { return nil }
                if let waiter = state.waiter {
                    // A waiting consumer means nothing is queued and nothing unreported.
                    state.waiter = nil
                    return waiter
                }
                if state.items.count >= capacity {
                    state.droppedSinceLast += 1
                    state.totalDropped += 1
                    return nil
                }
                if state.droppedSinceLast > 0 {
                    state.items.append(.dropped(count: state.droppedSinceLast))
                    state.droppedSinceLast = 0
                }
                state.items.append(.value(value))
                return nil
            }
            waiter?.resume(returning: .value(value))
        }

        /// Ends the stream once what is queued has been taken.
        func finish() {
            let waiter = state.withLock { state -> CheckedContinuation<Element?, Never>? in
                state.finished = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }

        func take() async -> Element? {
            if let ready = state.withLock({ Self.takeReady(&$0) }) { return ready.element }
            let id = state.withLock { state -> UInt64 in
                state.waiterID &+= 1
                return state.waiterID
            }
            return await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                    let immediate = state.withLock { state -> Element?? in
                        if let ready = Self.takeReady(&state) { return .some(ready.element) }
                        if Task.isCancelled || state.waiter != nil || state.waiterID != id { return .some(nil) }
                        state.waiter = continuation
                        return nil
                    }
                    if let immediate { continuation.resume(returning: immediate) }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Element?, Never>? in
                    guard state.waiterID == id else { return nil }
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume(returning: nil)
            }
        }

        /// The next element if one is ready (or the stream ended), else nil to wait.
        private static func takeReady(_ state: inout State) -> (element: Element?, Void)? {
            if let item = state.items.popFirst() { return (item, ()) }
            if state.droppedSinceLast > 0 {
                defer { state.droppedSinceLast = 0 }
                return (.dropped(count: state.droppedSinceLast), ())
            }
            if state.finished { return (nil, ()) }
            return nil
        }
    }
}
