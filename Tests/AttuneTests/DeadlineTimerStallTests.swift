import Synchronization
import Testing
@testable import Attune

/// A wake-up that comes long after its deadline (the process was not scheduled) gives
/// the engine back the missed time once before it fires, so replies that arrived during
/// the stall are read first. (Only a lower bound is checked: a loaded machine may make
/// any wake-up late, never early.)
@Suite struct DeadlineTimerStallTests {
    final class Fired: Sendable {
        let at = Mutex<ContinuousClock.Instant?>(nil)
    }

    func wake(after instant: ContinuousClock.Instant) async -> Duration {
        let fired = Fired()
        let start = ContinuousClock.now
        var timer = DeadlineTimer<Task<Void, Never>>()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            timer.schedule(.zero, at: instant) {
                fired.at.withLock { $0 = .now }
                done.resume()
            }
        }
        _ = timer
        return (fired.at.withLock { $0 } ?? start) - start
    }

    @Test(.timeLimit(.minutes(10)))
    func aWakeUpTwoSecondsLateWaitsTwoSecondsMore() async {
        // Armed for an instant already 2 s gone: as if the process had been stopped.
        let waited = await wake(after: .now - .seconds(2))
        #expect(waited >= .milliseconds(1_900), "fired after \(waited), without the missed time")
    }
}
