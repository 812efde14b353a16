import HCI
import Synchronization

/// The queue between a ``UserlandHost`` and the one consumer of its ``UserlandHost/events``.
///
/// The controller cannot be paused for events the way a link can (a scan delivers
/// reports at the radio's pace), so a consumer slower than the radio must not make this
/// process grow. Events are of two kinds:
///
/// - Lifecycle events (``HostEvent/ready(_:)``, ``HostEvent/connected(_:)``,
///   ``HostEvent/disconnected(handle:reason:)``, ``HostEvent/connectionEnded(handle:error:)``)
///   are always kept: the consumer must learn of every link, and they come at most a few
///   per connection.
/// - Everything else (advertising reports, warnings, ATT data when not routed to channels,
///   link updates) shares ``capacity`` places; when they are taken, a new one is dropped
///   and counted in ``droppedCount`` (advertising reports also in
///   ``droppedAdvertisingReportCount``).
///
/// Order is kept among everything that is delivered.
final class HostEventBuffer: Sendable {
    private struct State {
        var queue: [HostEvent] = []
        var head = 0
        /// Queued events that are not lifecycle events.
        var boundedCount = 0
        var dropped = 0
        var droppedReports = 0
        var finished = false
        /// The consumer's task was cancelled: nobody takes events any more.
        var abandoned = false
        var taker: CheckedContinuation<HostEvent?, Never>?
    }

    /// The most non-lifecycle events that may wait.
    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        precondition(capacity > 0, "an event buffer needs room for at least one event")
        self.capacity = capacity
    }

    /// True for events that are never dropped.
    static func isLifecycle(_ event: HostEvent) -> Bool {
        switch event {
        case .ready, .connected, .disconnected, .connectionEnded: true
        default: false
        }
    }

    /// Queues an event for the consumer, or drops and counts it when it is not a
    /// lifecycle event and ``capacity`` of those already wait. Discarded after ``finish()``;
    /// counted as dropped once the consumer's task was cancelled.
    func push(_ event: HostEvent) {
        let taker = state.withLock { s -> CheckedContinuation<HostEvent?, Never>? in
            guard !s.finished else {
                if s.abandoned { s.dropped += 1 }
                return nil
            }
            if let taker = s.taker {
                s.taker = nil
                return taker
            }
            if !Self.isLifecycle(event) {
                guard s.boundedCount < capacity else {
                    s.dropped += 1
                    if case .advertisingReport = event { s.droppedReports += 1 }
                    return nil
                }
                s.boundedCount += 1
            }
            s.queue.append(event)
            return nil
        }
        taker?.resume(returning: event)
    }

    /// Ends the sequence once what is queued has been taken.
    func finish() {
        let taker = state.withLock { s -> CheckedContinuation<HostEvent?, Never>? in
            s.finished = true
            defer { s.taker = nil }
            return s.taker
        }
        taker?.resume(returning: nil)
    }

    /// The next event, waiting for one; nil once finished and drained, or when the
    /// waiting task is cancelled (which ends the sequence for good, as for an `AsyncStream`).
    func next() async -> HostEvent? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (taker: CheckedContinuation<HostEvent?, Never>) in
                let event = state.withLock { s -> HostEvent?? in
                    if s.head < s.queue.count {
                        let event = s.queue[s.head]
                        s.head += 1
                        if !Self.isLifecycle(event) { s.boundedCount -= 1 }
                        // Compact now and then so the array does not keep taken events.
                        if s.head == s.queue.count {
                            s.queue.removeAll(keepingCapacity: s.queue.count <= 4 * capacity)
                            s.head = 0
                        } else if s.head >= 64 && s.head * 2 >= s.queue.count {
                            s.queue.removeFirst(s.head)
                            s.head = 0
                        }
                        return .some(event)
                    }
                    if s.finished || Task.isCancelled { return .some(nil) }
                    s.taker = taker
                    return .none
                }
                if let event { taker.resume(returning: event) }
            }
        } onCancel: {
            let taker = state.withLock { s -> CheckedContinuation<HostEvent?, Never>? in
                if !s.finished { s.abandoned = true }
                s.finished = true
                s.dropped += s.queue.count - s.head
                s.queue = []
                s.head = 0
                s.boundedCount = 0
                defer { s.taker = nil }
                return s.taker
            }
            taker?.resume(returning: nil)
        }
    }

    /// Non-lifecycle events waiting for the consumer (at most ``capacity``).
    var boundedCount: Int { state.withLock { $0.boundedCount } }

    /// Every event waiting for the consumer.
    var count: Int { state.withLock { $0.queue.count - $0.head } }

    /// Events dropped because ``capacity`` of them already waited, or because the
    /// consumer stopped taking them (its task was cancelled).
    var droppedCount: Int { state.withLock { $0.dropped } }

    /// The advertising reports among the events dropped for want of room.
    var droppedAdvertisingReportCount: Int { state.withLock { $0.droppedReports } }
}
