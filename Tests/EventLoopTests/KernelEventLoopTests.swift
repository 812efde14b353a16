import Glibc
import Synchronization
import Testing
import WaitTestSupport
@testable import EventLoop

/// The loop on ordinary descriptors: socketpairs and pipes stand in for
/// Bluetooth sockets, which this machine's kernel does not have.
@Suite struct KernelEventLoopTests {
    static func socketPair() throws -> (Int32, Int32) {
        var fds: [Int32] = [0, 0]
        let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &fds) == 0 else { throw EventLoopError.current("socketpair") }
        return (fds[0], fds[1])
    }

    @Test func executeWakesTheLoopThread() async throws {
        let loop = try KernelEventLoop()
        defer { loop.shutdown() }
        let caller = pthread_self()
        let ranElsewhere = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            loop.execute { continuation.resume(returning: pthread_equal(pthread_self(), caller) == 0) }
        }
        #expect(ranElsewhere)
    }

    @Test func timersFireInDeadlineOrder() async throws {
        let loop = try KernelEventLoop()
        defer { loop.shutdown() }
        let fired = Mutex<[Int]>([])
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            for delay in [30, 10, 20] {
                loop.schedule(after: .milliseconds(delay)) {
                    let done = fired.withLock { order -> Bool in
                        order.append(delay)
                        return order.count == 3
                    }
                    if done { continuation.resume() }
                }
            }
        }
        #expect(fired.withLock { $0 } == [10, 20, 30])
        #expect(loop.timerCount == 0)
    }

    @Test func cancelledTimerNeverFires() async throws {
        let loop = try KernelEventLoop()
        defer { loop.shutdown() }
        let fired = Mutex<Bool>(false)
        let timer = loop.schedule(after: .milliseconds(20)) { fired.withLock { $0 = true } }
        #expect(loop.cancel(timer))
        #expect(!loop.cancel(timer))
        let start = KernelEventLoop.now()
        // Absence by order, not by waiting: the loop fires timers in deadline order, so
        // once this later timer has fired, the cancelled one had its turn to.
        try await loop.sleep(for: .milliseconds(60))
        #expect(KernelEventLoop.now() - start >= 60_000_000)
        let didFire = fired.withLock { $0 }
        #expect(!didFire)
    }

    @Test func sleepIsCancellable() async throws {
        let loop = try KernelEventLoop()
        defer { loop.shutdown() }
        // Runs on this thread until it parks on the loop's timer.
        let sleeper = Task.immediate { try await loop.sleep(for: .seconds(60)) }
        #expect(loop.timerCount == 1, "the sleep is armed before it is cancelled")
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(loop.timerCount == 0)
    }

    @Test func waitTimesOutThroughTheLoopTimer() async throws {
        let loop = try KernelEventLoop()
        defer { loop.shutdown() }
        let (a, b) = try Self.socketPair()
        defer { close(a); close(b) }
        let registration = try loop.register(a)
        let start = KernelEventLoop.now()
        await #expect(throws: EventLoopError(kind: .timedOut, operation: "wait")) {
            try await loop.waitReadable(registration, timeout: .milliseconds(50))
        }
        #expect(KernelEventLoop.now() - start >= 50_000_000)
        loop.deregister(registration)
        #expect(loop.registrationCount == 0)
    }

    @Test func deregisterFailsAPendingWait() async throws {
        let loop = try KernelEventLoop()
        defer { loop.shutdown() }
        let (a, b) = try Self.socketPair()
        defer { close(a); close(b) }
        let registration = try loop.register(a)
        // Runs on this thread until it waits on the loop, so the deregistration finds it.
        let waiter = Task.immediate { try await loop.waitReadable(registration) }
        loop.deregister(registration)
        await #expect(throws: EventLoopError(kind: .closed, operation: "wait")) { try await waiter.value }
    }

    @Test func cancellingAWaitLeavesTheDescriptorUsable() async throws {
        let loop = try KernelEventLoop()
        defer { loop.shutdown() }
        let (a, b) = try Self.socketPair()
        defer { close(a); close(b) }
        let registration = try loop.register(a)
        // Runs on this thread until it waits on the loop, so the cancel finds it waiting.
        let waiter = Task.immediate { try await loop.waitReadable(registration) }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        var byte: UInt8 = 7
        #expect(write(b, &byte, 1) == 1)
        try await loop.waitReadable(registration, timeout: hangGuard)
        loop.deregister(registration)
    }

    /// A gateway keeps hundreds of links on one loop: 400 socketpairs, a task
    /// waiting on each, every one woken by its own datagram.
    @Test func servesHundredsOfDescriptors() async throws {
        let loop = try KernelEventLoop()
        defer { loop.shutdown() }
        let count = 400
        var pairs: [(Int32, Int32)] = []
        for _ in 0..<count { pairs.append(try Self.socketPair()) }
        defer { for (a, b) in pairs { close(a); close(b) } }
        let registrations = try pairs.map { try loop.register($0.0) }
        #expect(loop.registrationCount == count)
        let received = try await withThrowingTaskGroup(of: UInt8.self) { group in
            for (index, registration) in registrations.enumerated() {
                let fd = pairs[index].0
                // Each child runs on this thread until it parks on the loop, so every one
                // waits before anything is written.
                group.addImmediateTask {
                    while true {
                        var byte: UInt8 = 0
                        if recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) == 1 { return byte }
                        guard errno == EAGAIN else { throw EventLoopError.current("recv") }
                        try await loop.waitReadable(registration, timeout: hangGuard)
                    }
                }
            }
            for (index, pair) in pairs.enumerated() {
                var byte = UInt8(truncatingIfNeeded: index)
                guard send(pair.1, &byte, 1, 0) == 1 else { throw EventLoopError.current("send") }
            }
            var sum = 0
            for try await byte in group { sum += Int(byte) }
            return sum
        }
        #expect(received == (0..<count).reduce(0) { $0 + Int(UInt8(truncatingIfNeeded: $1)) })
        for registration in registrations { loop.deregister(registration) }
        #expect(loop.registrationCount == 0)
    }

    @Test func shutdownFailsPendingWaits() async throws {
        let loop = try KernelEventLoop()
        let (a, b) = try Self.socketPair()
        defer { close(a); close(b) }
        let registration = try loop.register(a)
        // Runs on this thread until it waits on the loop, so the shutdown finds it.
        let waiter = Task.immediate { try await loop.waitReadable(registration) }
        loop.shutdown()
        await #expect(throws: EventLoopError.self) { try await waiter.value }
    }
}

