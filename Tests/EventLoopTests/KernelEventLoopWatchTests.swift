import Glibc
import Synchronization
import Testing
@testable import EventLoop

/// Watched descriptors (the userland host's way onto the loop): level-triggered turns
/// that take turns, and a watch with no interest that stays quiet even when hung up.
@Suite struct KernelEventLoopWatchTests {
    @Test("two always-readable descriptors take turns: neither gets two turns to the other's one")
    func readyDescriptorsTakeTurns() async throws {
        let loop = try KernelEventLoop()
        defer { loop.shutdown() }
        let (a0, a1) = try KernelEventLoopTests.socketPair()
        let (b0, b1) = try KernelEventLoopTests.socketPair()
        defer { for fd in [a0, a1, b0, b1] { close(fd) } }
        // One byte each, never read: both stay readable, so each turn could be the last.
        var byte: UInt8 = 1
        _ = send(a1, &byte, 1, 0)
        _ = send(b1, &byte, 1, 0)
        // Turns count once both are watched and the loop has begun a pass with both: on a
        // loaded machine the loop thread can serve the first many times before the test
        // thread registers the second.
        let counts = Mutex((a: 0, b: 0, worstGap: 0, done: false, ready: false))
        let watches = Mutex<[KernelEventLoop.Watch]>([])
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let turn: @Sendable (Bool) -> Void = { isA in
                let finished = counts.withLock { c -> Bool in
                    guard !c.done, c.ready else { return false }
                    if isA { c.a += 1 } else { c.b += 1 }
                    c.worstGap = max(c.worstGap, abs(c.a - c.b))
                    c.done = c.a + c.b >= 200
                    return c.done
                }
                if finished {
                    for watch in watches.withLock({ $0 }) { loop.unwatch(watch) }
                    continuation.resume()
                }
            }
            do {
                let wa = try loop.watch(a0, reading: true, writing: false) { _ in turn(true) }
                let wb = try loop.watch(b0, reading: true, writing: false) { _ in turn(false) }
                watches.withLock { $0 = [wa, wb] }
                // Set on the loop thread, between passes: a pass already under way when
                // the second watch was added reports only the first, which counted as a
                // turn would give it two to the other's one (seen on a loaded machine).
                loop.execute { counts.withLock { $0.ready = true } }
            } catch {
                Issue.record("watch failed: \(error)")
                continuation.resume()
            }
        }
        let result = counts.withLock { $0 }
        #expect(result.a + result.b >= 200)
        #expect(result.worstGap <= 1, "turns were \(result.a) to \(result.b), worst gap \(result.worstGap)")
    }

    @Test("a watch with no interest is out of the epoll set: a hung-up descriptor does not call it")
    func noInterestStaysQuiet() async throws {
        let loop = try KernelEventLoop()
        defer { loop.shutdown() }
        let (a0, a1) = try KernelEventLoopTests.socketPair()
        defer { close(a0) }
        let calls = Mutex(0)
        let watch = try loop.watch(a0, reading: false, writing: false) { _ in calls.withLock { $0 += 1 } }
        close(a1)  // a0 is now hung up for good
        // A timer fires on the loop's own pass: by then a hung-up descriptor in the set
        // would have been reported.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.schedule(after: .milliseconds(20)) { continuation.resume() }
        }
        #expect(calls.withLock { $0 } == 0)
        // Asking to read brings it back, with the hang-up.
        let hungUp = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let once = Mutex(false)
            loop.unwatch(watch)
            _ = try? loop.watch(a0, reading: true, writing: false) { readiness in
                guard once.withLock({ let first = !$0; $0 = true; return first }) else { return }
                continuation.resume(returning: readiness.hungUp || readiness.readable)
            }
        }
        #expect(hungUp)
    }

    /// The userland host's command timeouts are loop timers, and a flooded controller's
    /// descriptor is always ready. The timer must fire while that descriptor keeps taking
    /// turns: a loop that served a ready descriptor until it went quiet would never fire
    /// it here, since this one never goes quiet. Shown by order, on the loop thread: the
    /// timer's action comes, and the busy descriptor, never read, goes on taking turns
    /// after it.
    @Test("a timer fires while a descriptor stays ready, between its turns")
    func timerFiresBesideABusyDescriptor() async throws {
        let loop = try KernelEventLoop()
        defer { loop.shutdown() }
        let (a0, a1) = try KernelEventLoopTests.socketPair()
        defer { for fd in [a0, a1] { close(fd) } }
        var byte: UInt8 = 1
        _ = send(a1, &byte, 1, 0)  // never read: readable on every pass
        // The timer falls due 20 ms after it is set, and the timerfd is ready from then on,
        // however loaded the machine: a fair loop serves it on its next pass, after a few
        // thousand turns at most. A million turns without it is a loop that never fires
        // it, and ends the test rather than let it hang.
        let starved = 1_000_000
        let order = Mutex((before: 0, after: 0, scheduled: false, fired: false, ended: false))
        let watches = Mutex<[KernelEventLoop.Watch]>([])
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let turn: @Sendable (KernelEventLoop.Readiness) -> Void = { _ in
                let finished = order.withLock { o -> Bool in
                    guard o.scheduled, o.after < 100, o.before < starved else { return false }
                    if o.fired { o.after += 1 } else { o.before += 1 }
                    o.ended = o.after == 100 || o.before == starved
                    return o.ended
                }
                if finished {
                    for watch in watches.withLock({ $0 }) { loop.unwatch(watch) }
                    continuation.resume()
                }
            }
            do {
                let watch = try loop.watch(a0, reading: true, writing: false, handler: turn)
                watches.withLock { $0 = [watch] }
                loop.schedule(after: .milliseconds(20)) { order.withLock { if !$0.ended { $0.fired = true } } }
                order.withLock { $0.scheduled = true }
            } catch {
                Issue.record("watch failed: \(error)")
                continuation.resume()
            }
        }
        let result = order.withLock { $0 }
        #expect(result.fired, "no timer after \(result.before) turns of a ready descriptor")
        #expect(result.after == 100)
    }
}
