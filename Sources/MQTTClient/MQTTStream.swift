import BluetoothCore
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

    /// BluetoothCore's bounded buffer dropping the newest, with the drop report as an
    /// element of its own in the place of the gap.
    final class Buffer: Sendable {
        let capacity: Int
        private let buffer: AsyncBoundedBuffer<Element>
        private let totalDropped = Atomic(0)

        init(capacity: Int) {
            self.capacity = Swift.max(1, capacity)
            buffer = AsyncBoundedBuffer(capacity: capacity, carrier: LossCarrier(marker: { .dropped(count: $0) }))
        }

        /// Values dropped so far.
        var dropped: Int { totalDropped.load(ordering: .relaxed) }

        /// Offers a value from the producer; it is dropped and counted when the buffer is full.
        func offer(_ value: Value) {
            if buffer.push(.value(value), whenFull: .dropNewest) == .dropped {
                totalDropped.wrappingAdd(1, ordering: .relaxed)
            }
        }

        /// Ends the stream once what is queued has been taken.
        func finish() { buffer.finish() }

        func take() async -> Element? { await buffer.next() }
    }
}
