import Synchronization

/// A clock that moves only when the test moves it: sleepers wake when ``advance(to:)``
/// passes their deadline, so timing is checked without waiting on real time.
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Int: Sleeper] = [:]
        var next = 0
    }

    private let state = Mutex(State())

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .nanoseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { s -> Int in
            defer { s.next += 1 }
            return s.next
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { s -> Bool in
                    if deadline <= s.now { return true }
                    s.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// The earliest deadline anyone sleeps until.
    var nextDeadline: Instant? { state.withLock { $0.sleepers.values.map(\.deadline).min() } }

    /// Whether someone sleeps until exactly `instant`.
    func isSleeping(until instant: Instant) -> Bool {
        state.withLock { s in s.sleepers.values.contains { $0.deadline == instant } }
    }

    /// Moves time to `instant`, waking every sleeper whose deadline it reaches.
    func advance(to instant: Instant) {
        let woken = state.withLock { s -> [Sleeper] in
            s.now = max(s.now, instant)
            let due = s.sleepers.filter { $0.value.deadline <= s.now }
            for id in due.keys { s.sleepers.removeValue(forKey: id) }
            return Array(due.values)
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }
}
