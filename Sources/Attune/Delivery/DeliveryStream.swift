/// An application's end of a ``DeliveryBuffer``: the public streams of notifications
/// and of scan results. Values come out in batches per wake-up, one at a time to the
/// loop. Releasing the stream and its iterator tells the producer the consumer is gone.
public struct DeliveryStream<Element: LossReporting>: AsyncSequence, Sendable {
    public typealias Failure = AttuneError

    /// Holds the buffer for as long as the stream or an iterator lives.
    final class Consumer: Sendable {
        let buffer: DeliveryBuffer<Element>
        init(_ buffer: DeliveryBuffer<Element>) { self.buffer = buffer }
        deinit { buffer.terminate() }
    }

    let consumer: Consumer

    init(_ buffer: DeliveryBuffer<Element>) { consumer = Consumer(buffer) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let consumer: Consumer
        var pending: [Element] = []
        var index = 0

        // The application's module calls this unspecialized (the stream is generic and
        // its internals are not inlinable), which would run the buffer's generic code and
        // look its types' metadata up at run time for every batch. The notification
        // stream's own copy is compiled here, and the generic entry branches to it.
        @_specialize(where Element == Notification)
        public mutating func next() async throws(AttuneError) -> Element? {
            if index < pending.count {
                defer { index += 1 }
                return pending[index]
            }
            // The batch just handed out goes back to the buffer, for the next one to be
            // built in.
            if pending.capacity > 0 { consumer.buffer.recycle(&pending) }
            guard let batch = try await consumer.buffer.take() else { return nil }
            pending = batch
            index = 1
            return batch[0]
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(consumer: consumer) }
}

/// What ``Peripheral/notifications(for:)`` returns.
public typealias NotificationStream = DeliveryStream<Notification>
