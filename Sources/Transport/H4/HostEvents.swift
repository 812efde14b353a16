import BluetoothCore
import HCI

/// The events of a ``UserlandHost``, in order, in one bounded buffer (BluetoothCore's
/// ``BoundedBuffer``), with a loss policy per kind of event.
///
/// Advertising reports are the one event a busy street can flood, faster than a slow
/// consumer takes, and the radio cannot be paused: once ``reportLimit`` events wait, a
/// new report is dropped and counted, and the count travels in the next report let in,
/// as `AdvertisingReport.lostBefore`: never lost silently, never grown without bound.
/// Other events cannot be dropped (a lost disconnection would corrupt the application's
/// state), so once ``eventLimit`` wait the host stops with
/// ``HostError/transportClosed(_:)`` naming the cause: a consumer that stopped taking
/// events fails loudly instead of letting a controller grow memory.
public struct HostEvents: AsyncSequence, Sendable {
    public typealias Element = HostEvent
    /// Events that may wait before a new advertising report is dropped.
    public static let reportLimit = 1024
    /// Events that may wait before the host stops.
    public static let eventLimit = 16_384

    let buffer: Buffer

    public struct AsyncIterator: AsyncIteratorProtocol {
        let buffer: Buffer

        public mutating func next() async -> HostEvent? { await buffer.events.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(buffer: buffer) }

    /// The host's end: it offers events and finishes the stream; the consumer takes one
    /// at a time, so what waits stays within the limits.
    final class Buffer: Sendable {
        let events = AsyncBoundedBuffer<HostEvent>(capacity: HostEvents.eventLimit, carrier: LossCarrier(
            carry: { event, lost in
                guard case .advertisingReport(var report) = event else { return false }
                report.lostBefore += lost
                event = .advertisingReport(report)
                return true
            }, carried: { event in
                if case .advertisingReport(let report) = event { return report.lostBefore }
                return 0
            }))

        /// Queues a report, or drops and counts it when ``HostEvents/reportLimit`` events wait.
        func offerReport(_ report: AdvertisingReport) {
            events.push(.advertisingReport(report), limit: HostEvents.reportLimit, whenFull: .dropNewest)
        }

        /// Queues an event other than a report; false, queueing nothing, when
        /// ``HostEvents/eventLimit`` wait: the host must stop.
        func offer(_ event: HostEvent) -> Bool {
            events.push(event, limit: HostEvents.eventLimit, whenFull: .stop) != .refused
        }

        /// Ends the stream once what waits has been taken.
        func finish() { events.finish() }
    }
}
