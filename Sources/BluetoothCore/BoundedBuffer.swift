/// The one bounded hand-off from a producer to one consumer, as a state machine: every
/// queue between the wire and the application (a link's inbox, the public notification
/// and scan streams, the MQTT streams, the userland host's events) is this value inside
/// a lock.
///
/// It holds no lock, clock or task: the owner keeps it in a mutex, feeds it the inputs
/// (``push(_:limit:whenFull:)``, ``take(orWait:)``, ``finish(last:failure:)``,
/// ``stalled()``, ``terminate()``), and carries out what each returns (resume this
/// consumer with these elements, pause the producer, count a loss), outside the lock.
/// The state is one enum whose cases carry what that state holds, like swift-nio's
/// `NIOThrowingAsyncSequenceProducerStateMachine`: a waiting consumer exists only while
/// nothing is queued, and an ended buffer has no consumer to wait.
///
/// What happens when it is full is the ``LossPolicy``, chosen per push: the producer
/// pauses (nothing is dropped; its wait is bounded by its own clock, after which it
/// calls ``stalled()`` and the oldest go), the newest is dropped and counted, or the
/// push is refused and the producer stops loudly. No policy loses anything silently:
/// a count reaches the consumer through the ``LossCarrier``, in the element after the
/// gap, as a marker element of its own, or through ``takeLost()``.
public struct BoundedBuffer<Element, Consumer, Failure: Error> {
    /// What a push does when `limit` elements already wait.
    public enum LossPolicy: Hashable, Sendable {
        /// Queue it anyway and tell the producer to pause: for a producer that can hold
        /// its source (a socket, a link). Past ``BoundedBuffer/stalled()`` (the producer's
        /// bounded wait ran out) the oldest waiting element is dropped instead, until the
        /// consumer takes.
        case pauseProducer
        /// Drop the arriving element and count it: for a source that cannot be paused
        /// (a radio, a broker). The count is reported at the gap.
        case dropNewest
        /// Refuse it, queueing nothing: for elements that must not be lost. The producer
        /// stops loudly (ends the stream with the cause) instead of growing memory.
        case stop
    }

    /// Elements waiting, oldest first from `head` (the slots before it were dropped), and
    /// the count of elements lost after the last of them that no element carries yet.
    public struct Queue {
        @usableFromInline var elements: [Element]
        @usableFromInline var head: Int
        @usableFromInline var lost: Int

        @inlinable init() {
            elements = []
            head = 0
            lost = 0
        }

        @inlinable init(lost: Int, storage: [Element] = []) {
            self.init()
            self.lost = lost
            elements = storage
        }

        /// How many elements wait.
        @inlinable public var count: Int { elements.count - head }

        /// Up to `limit` of the oldest waiting elements, oldest first.
        @inlinable mutating func removeFirst(atMost limit: Int, capacity: Int) -> [Element] {
            if head == 0 && limit >= elements.count {
                defer { elements = [] }
                return elements
            }
            let end = head + min(limit, count)
            let batch = Array(elements[head..<end])
            head = end
            // Reclaim the slots taken once they are as many as the buffer holds.
            if head == elements.count {
                elements.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= capacity {
                elements.removeFirst(head)
                head = 0
            }
            return batch
        }
    }

    /// The buffer's states; each carries exactly what it holds.
    public enum State {
        /// Open; elements may wait, no consumer does.
        case buffering(Queue)
        /// Open and empty; the consumer waits for the next element. `lost` counts drops
        /// no element could carry yet (for ``takeLost()``).
        case consumerWaiting(Consumer, lost: Int)
        /// Open and full for longer than the producer would wait: each push drops the
        /// oldest waiting element, until the consumer takes.
        case overflowing(Queue)
        /// The producer is done; what waits is taken, then the end, with the failure once.
        case finished(Queue, Failure?)
        /// The consumer went away: nothing waits and nothing more is queued.
        case terminated
    }

    /// What the owner does after a push.
    public enum PushOutcome {
        /// Resume the waiting consumer with these elements (the pushed one, after a
        /// loss marker when one was due).
        case resume(Consumer, [Element])
        /// Queued. With `hasRoom` false the producer pauses (``LossPolicy/pauseProducer``).
        case queued(hasRoom: Bool)
        /// Queued after dropping the oldest waiting element (overflowing); count one loss.
        case queuedDroppingOldest
        /// Dropped and counted (``LossPolicy/dropNewest``).
        case dropped
        /// Full: nothing queued (``LossPolicy/stop``). The producer stops loudly.
        case refused
        /// Finished or terminated: discarded, as the consumer will take nothing more.
        case closed
    }

    /// What a take gives the consumer.
    public enum TakeOutcome {
        /// Everything that waited, oldest first (never empty).
        case elements([Element])
        /// Nothing waits: the consumer is kept, and resumed by a later input.
        case waiting
        /// The buffer ended and was drained: nil for a normal end, else the failure (once).
        case end(Failure?)
    }

    /// How many elements may wait before the default policy applies.
    public let capacity: Int
    /// How the element type reports a loss.
    @usableFromInline let carrier: LossCarrier<Element>
    @usableFromInline var _state: State
    /// Empty storage of batches the consumer gave back (``recycle(_:)``), for the next
    /// batches to be built in: a steady stream then allocates no arrays of its own. Two,
    /// as two are in flight at once: the batch the consumer holds, and the queue behind it.
    @usableFromInline var spare: [Element] = []
    @usableFromInline var secondSpare: [Element] = []
    /// Where the buffer is; only its inputs change it.
    public var state: State { _state }

    /// A buffer of at least one element.
    @inlinable
    public init(capacity: Int, carrier: LossCarrier<Element> = .none) {
        self.capacity = max(1, capacity)
        self.carrier = carrier
        _state = .buffering(Queue())
    }

    /// How many elements wait.
    @inlinable
    public var count: Int {
        switch _state {
        case .buffering(let q), .overflowing(let q), .finished(let q, _): q.count
        case .consumerWaiting, .terminated: 0
        }
    }

    /// Whether pushes are still queued (not finished, the consumer still there).
    @inlinable
    public var isOpen: Bool {
        switch _state {
        case .buffering, .consumerWaiting, .overflowing: true
        case .finished, .terminated: false
        }
    }

    /// Whether a paused producer may go on: there is room, the buffer drops instead of
    /// holding it (overflowing), or nobody will take what it pushes.
    @inlinable
    public var producerMayGoOn: Bool {
        switch _state {
        case .buffering(let q): q.count < capacity
        case .consumerWaiting, .overflowing, .finished, .terminated: true
        }
    }

    // MARK: Producer

    /// Queues `element`, or hands it to the waiting consumer. `limit` (default
    /// ``capacity``) is how many may wait before `policy` applies.
    @inlinable
    public mutating func push(_ element: Element, limit: Int? = nil,
                              whenFull policy: LossPolicy = .pauseProducer) -> PushOutcome {
        let limit = limit ?? capacity
        switch _state {
        case .consumerWaiting(let consumer, let lost):
            var batch = takeSpare()
            var element = element
            var lost = lost
            admit(&element, lost: &lost, into: &batch)
            _state = .buffering(Queue(lost: lost))
            return .resume(consumer, batch)
        case .buffering(var q):
            _state = .terminated  // Not a state anyone sees: it frees `q` to be mutated in place.
            defer { _state = .buffering(q) }
            guard q.count >= limit else {
                append(element, to: &q)
                return .queued(hasRoom: q.count < capacity)
            }
            switch policy {
            case .pauseProducer:
                append(element, to: &q)
                return .queued(hasRoom: false)
            case .dropNewest:
                q.lost += 1
                return .dropped
            case .stop:
                return .refused
            }
        case .overflowing(var q):
            _state = .terminated
            defer { _state = .overflowing(q) }
            guard q.count >= limit else {
                append(element, to: &q)
                return .queued(hasRoom: true)
            }
            switch policy {
            case .pauseProducer:
                dropOldest(&q, then: element)
                return .queuedDroppingOldest
            case .dropNewest:
                q.lost += 1
                return .dropped
            case .stop:
                return .refused
            }
        case .finished, .terminated:
            return .closed
        }
    }

    /// The producer waited as long as it may and the consumer still took nothing: from
    /// now until the consumer takes, each push past the limit drops the oldest waiting
    /// element. Returns whether the buffer is overflowing now (false: room appeared, or
    /// it ended, meanwhile).
    @inlinable
    public mutating func stalled() -> Bool {
        guard case .buffering(let q) = _state, q.count >= capacity else {
            if case .overflowing = _state { return true }
            return false
        }
        _state = .overflowing(q)
        return true
    }

    /// Ends the stream after what waits, with `last` queued as its final element and
    /// `failure` thrown (once) after it. Returns a waiting consumer to resume with the
    /// batch (empty: the end); nil when none waited, or the buffer had ended already.
    @inlinable
    public mutating func finish(last: Element? = nil, failure: Failure? = nil) -> (Consumer, [Element])? {
        switch _state {
        case .consumerWaiting(let consumer, let lost):
            var batch: [Element] = []
            if var last {
                var lost = lost
                admit(&last, lost: &lost, into: &batch)
                _state = .finished(Queue(lost: lost), failure)
            } else {
                _state = .finished(Queue(lost: lost), failure)
            }
            // The end itself is delivered by the consumer's next take.
            return (consumer, batch)
        case .buffering(var q), .overflowing(var q):
            if let last { append(last, to: &q) }
            _state = .finished(q, failure)
            return nil
        case .finished, .terminated:
            return nil
        }
    }

    /// Drops and counts that no element carried, since the last call; for element types
    /// with neither a carrier nor a marker (``LossCarrier/none``).
    @inlinable
    public mutating func takeLost() -> Int {
        switch _state {
        case .buffering(var q):
            defer { q.lost = 0; _state = .buffering(q) }
            return q.lost
        case .overflowing(var q):
            defer { q.lost = 0; _state = .overflowing(q) }
            return q.lost
        case .finished(var q, let failure):
            defer { q.lost = 0; _state = .finished(q, failure) }
            return q.lost
        case .consumerWaiting(let consumer, let lost):
            _state = .consumerWaiting(consumer, lost: 0)
            return lost
        case .terminated:
            return 0
        }
    }

    // MARK: Consumer

    /// Everything waiting, or the end; when nothing waits and the buffer is open, keeps
    /// `consumer` to resume later (``TakeOutcome/waiting``); a nil consumer only looks. A
    /// second consumer while one waits gets ``TakeOutcome/end(_:)`` at once. A take ends overflowing:
    /// the consumer is back, so the producer pauses again the next time it is full.
    /// `atMost` bounds the batch, for a consumer that takes one at a time and so keeps
    /// the rest counted against the limit.
    @inlinable
    public mutating func take(orWait consumer: Consumer?, atMost limit: Int = .max) -> TakeOutcome {
        switch _state {
        case .buffering(var q), .overflowing(var q):
            _state = .terminated  // Not a state anyone sees: it frees `q` to be mutated in place.
            reportTrailingLoss(&q)
            guard q.count > 0 else {
                if let consumer {
                    _state = .consumerWaiting(consumer, lost: q.lost)
                } else {
                    _state = .buffering(q)
                }
                return .waiting
            }
            let batch = q.removeFirst(atMost: max(1, limit), capacity: capacity)
            _state = .buffering(q)
            return .elements(batch)
        case .finished(var q, let failure):
            _state = .terminated
            reportTrailingLoss(&q)
            guard q.count > 0 else {
                _state = .finished(q, nil)
                return .end(failure)
            }
            let batch = q.removeFirst(atMost: max(1, limit), capacity: capacity)
            _state = .finished(q, failure)
            return .elements(batch)
        case .consumerWaiting:
            // One consumer at a time: a second one, while the first waits, ends at once
            // rather than taking the first one's place.
            return .end(nil)
        case .terminated:
            return .end(nil)
        }
    }

    /// Forgets the waiting consumer (its task was cancelled) and returns it, to resume
    /// with nothing; only when `isTheCancelled` says it is the one whose task was
    /// cancelled (a second consumer's cancellation must not end the first one's wait).
    @inlinable
    public mutating func cancelWaiting(if isTheCancelled: (Consumer) -> Bool = { _ in true }) -> Consumer? {
        guard case .consumerWaiting(let consumer, let lost) = _state, isTheCancelled(consumer) else { return nil }
        _state = .buffering(Queue(lost: lost))
        return consumer
    }

    /// The consumer is gone: what waits is dropped, and later pushes are discarded.
    /// Returns whether this was the first call (the owner tells its producer once).
    @inlinable
    public mutating func terminate() -> Bool {
        if case .terminated = _state { return false }
        _state = .terminated
        return true
    }

    // MARK: Loss

    /// Appends an element to a queue, carrying (or marking) the losses before it; a
    /// queue whose storage went out with the last batch takes the recycled one.
    @inlinable
    mutating func append(_ element: Element, to q: inout Queue) {
        var element = element
        if q.elements.capacity == 0 { q.elements = takeSpare() }
        admit(&element, lost: &q.lost, into: &q.elements)
    }

    /// The recycled storage, if any, leaving none behind.
    @inlinable
    mutating func takeSpare() -> [Element] {
        var storage: [Element] = []
        swap(&storage, &spare)
        swap(&spare, &secondSpare)
        return storage
    }

    // MARK: Storage

    /// Keeps the storage of a batch the consumer is done with, emptied, for a later
    /// batch; `storage` is left with whatever was kept before (empty). The consumer
    /// empties it first, outside the owner's lock, so no element is released under it.
    @inlinable
    public mutating func recycle(_ storage: inout [Element]) {
        guard storage.isEmpty, storage.capacity > 0 else { return }
        if spare.capacity == 0 {
            swap(&storage, &spare)
        } else if storage.capacity > secondSpare.capacity {
            swap(&storage, &secondSpare)
        }
    }

    @inlinable
    func admit(_ element: inout Element, lost: inout Int, into elements: inout [Element]) {
        if lost > 0 {
            if carrier.carry(&element, lost) {
                lost = 0
            } else if let marker = carrier.marker(lost) {
                elements.append(marker)
                lost = 0
            }
        }
        elements.append(element)
    }

    /// Drops the oldest waiting element and queues `element`; the dropped one's count,
    /// plus one, travels with the next oldest (with `element` itself in a queue of one).
    @inlinable
    func dropOldest(_ q: inout Queue, then element: Element) {
        var element = element
        let carried = carrier.carried(q.elements[q.head]) + 1
        q.head += 1
        if q.count > 0 {
            if !carrier.carry(&q.elements[q.head], carried) { q.lost += carried }
        } else if !carrier.carry(&element, carried) {
            q.lost += carried
        }
        if q.head >= capacity {
            q.elements.removeFirst(q.head)
            q.head = 0
        }
        admit(&element, lost: &q.lost, into: &q.elements)
    }

    /// Losses after the last waiting element become a marker at the end, for types that
    /// have one (the consumer then learns of them without waiting for another element).
    @inlinable
    func reportTrailingLoss(_ q: inout Queue) {
        guard q.lost > 0, let marker = carrier.marker(q.lost) else { return }
        q.elements.append(marker)
        q.lost = 0
    }
}

extension BoundedBuffer: Sendable where Element: Sendable, Consumer: Sendable {}
extension BoundedBuffer.Queue: Sendable where Element: Sendable, Consumer: Sendable {}
extension BoundedBuffer.State: Sendable where Element: Sendable, Consumer: Sendable {}
