import Synchronization

/// A ``ScanTable`` on the clock: reports go in from any thread, and what the table lets
/// through goes to `deliver`, in order, including devices whose wait for a scan response
/// ended with no report arriving (a timer task wakes for those).
///
/// `deliver` runs under the filter's lock, so it must not block for long nor call back in.
public final class ScanFilter: Sendable {
    private struct State: Sendable {
        var table: ScanTable
        var timer: Task<Void, Never>?
        var closed = false
    }

    private let state: Mutex<State>
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
        state.withLock { state in
            guard !state.closed else { return }
            for advertisement in state.table.receive(report, at: .now) { deliver(advertisement) }
            if state.timer == nil, state.table.nextDeadline != nil { state.timer = startTimer() }
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
        state.withLock { state in
            guard !state.closed else { return }
            for advertisement in state.table.expire(at: .now) { deliver(advertisement) }
        }
    }
}
