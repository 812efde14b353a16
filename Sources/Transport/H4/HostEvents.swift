import HCI
import Synchronization

/// The events of a ``UserlandHost``, in order: an `AsyncStream` that holds every event
/// but advertising reports, which it bounds. A busy street reports faster than a slow
/// consumer takes, and the radio cannot be paused, so past ``reportLimit`` reports
/// waiting the newest are dropped and counted in the next one's
/// `AdvertisingReport.lostBefore`: never lost silently, never grown without bound.
public struct HostEvents: AsyncSequence, Sendable {
    public typealias Element = HostEvent
    /// Advertising reports that may wait for the consumer at once.
    public static let reportLimit = 1024
    /// Other events that may wait at once. They cannot be dropped (a lost disconnection
    /// would corrupt the application's state), so past this the host stops with
    /// ``HostError/transportClosed(_:)`` naming the cause: a consumer that stopped
    /// taking events fails loudly instead of letting a controller grow memory.
    public static let eventLimit = 16_384

    let base: AsyncStream<HostEvent>
    let budget: ReportBudget

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<HostEvent>.Iterator
        let budget: ReportBudget

        public mutating func next() async -> HostEvent? {
            let event = await base.next()
            if case .advertisingReport = event { budget.taken() } else if event != nil { budget.takenEvent() }
            return event
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), budget: budget)
    }

    /// How many advertising reports wait in the stream, and how many were dropped since
    /// the last one let in.
    final class ReportBudget: Sendable {
        private let counts = Mutex((waiting: 0, dropped: 0))
        private let events = Mutex(0)

        /// Room for one more event other than a report; false past ``HostEvents/eventLimit``.
        func admitEvent() -> Bool {
            events.withLock { waiting in
                guard waiting < HostEvents.eventLimit else { return false }
                waiting += 1
                return true
            }
        }

        /// One queued event other than a report left the stream.
        func takenEvent() {
            events.withLock { $0 = Swift.max(0, $0 - 1) }
        }

        /// The report to queue, carrying the drops before it; nil when it is dropped.
        func admit(_ report: AdvertisingReport) -> AdvertisingReport? {
            counts.withLock { counts in
                guard counts.waiting < HostEvents.reportLimit else {
                    counts.dropped += 1
                    return nil
                }
                var admitted = report
                admitted.lostBefore += counts.dropped
                counts.dropped = 0
                counts.waiting += 1
                return admitted
            }
        }

        /// One queued report left the stream (taken, or never to be taken).
        func taken() {
            counts.withLock { $0.waiting = Swift.max(0, $0.waiting - 1) }
        }
    }
}
