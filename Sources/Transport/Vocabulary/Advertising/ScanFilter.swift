import Synchronization

/// A ``ScanTable`` on the clock: reports go in from any thread, and what the table lets
/// through goes to `deliver`, in order, including devices whose wait for a scan response
/// ended with no report arriving (a timer task wakes for those).
///
/// Deliveries are serialised (one device's discovery comes before its update) by a lock
/// of their own, which ``close()`` never takes: a consumer that stops (its stream's
/// termination handler closing the filter) while a delivery is under way cannot deadlock.
/// `deliver` must not call back into the filter.
public final class ScanFilter: Sendable {
    private struct State: Sendable {
        var table: ScanTable
        var timer: Task<Void, Never>?
        var closed = false
    }

    private let state: Mutex<State>
    /// Held while delivering, so deliveries leave in the order the table produced them.
    private let delivery = Mutex(())
    private let deliver: @Sendable (Advertisement) -> Void

    public init(_ table: ScanTable, deliver: @escaping @Sendable (Advertisement) -> Void) {
        state = Mutex(State(table: table))
        self.deliver = deliver
    }

    deinit {
        state.withLock { $0.timer }?.cancel()
    }

    /// Devices remembered now (never more than the table's limit).
    public var count: Int { state.withLock { $0.table.count } }

    /// Takes one report, received now.
    public func receive(_ report: Advertisement) {
        delivery.withLock { _ in
            let due = state.withLock { state -> [Advertisement] in
                guard !state.closed else { return [] }
                let due = state.table.receive(report, at: .now)
                if state.timer == nil, state.table.nextDeadline != nil { state.timer = startTimer() }
                return due
            }
            for advertisement in due { deliver(advertisement) }
        }
    }

    /// Stops delivering; devices still held are dropped with the scan.
    public func close() {
        state.withLock { state in
            state.closed = true
            return state.timer
        }?.cancel()
    }

    /// Sleeps until each deadline the table names and delivers what is due, until none is
    /// left (the next report that holds a device starts it again).
    private func startTimer() -> Task<Void, Never> {
        Task { [weak self] in
            while let deadline = self?.deadlineOrStop() {
                do { try await Task.sleep(until: deadline, clock: .continuous) } catch { return }
                self?.expireDue()
            }
        }
    }

    /// The next deadline; nil, with the timer marked gone, when there is none.
    private func deadlineOrStop() -> ContinuousClock.Instant? {
        state.withLock { state in
            if !state.closed, let deadline = state.table.nextDeadline { return deadline }
            state.timer = nil
            return nil
        }
    }

    private func expireDue() {
        delivery.withLock { _ in
            let due = state.withLock { state in state.closed ? [] : state.table.expire(at: .now) }
            for advertisement in due { deliver(advertisement) }
        }
    }
}
