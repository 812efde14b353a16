import Glibc
import Synchronization

/// One dedicated thread on `epoll` that serves every kernel socket in the
/// process, with an `eventfd` for wake-ups and a `timerfd` for deadlines
/// (``EpollSelector`` holds the three).
///
/// Sockets are registered once, edge-triggered; a task that finds a socket
/// would block awaits readiness here instead of parking a thread. The transports'
/// own deadlines (socket time-outs, the userland host's command and SMP timers, the
/// MQTT client's) are timers on the same loop. Nothing polls and nothing sleeps.
public final class KernelEventLoop: Sendable {
    /// A registered file descriptor.
    public struct Registration: Hashable, Sendable {
        let id: UInt64
    }

    /// A timer armed with ``schedule(after:_:)``.
    public struct Timer: Hashable, Sendable {
        let id: UInt64
    }

    /// A descriptor served by a handler on the loop thread; see ``watch(_:reading:writing:handler:)``.
    public struct Watch: Hashable, Sendable {
        let id: UInt64
    }

    /// What a watched descriptor is ready for, as its handler is told.
    public struct Readiness: Sendable {
        public var readable: Bool
        public var writable: Bool
        /// An error or hang-up: a read will say which (end of stream or an errno).
        public var hungUp: Bool

        public init(readable: Bool, writable: Bool, hungUp: Bool) {
            self.readable = readable
            self.writable = writable
            self.hungUp = hungUp
        }
    }

    /// Which readiness a registration's waiter waits for.
    public enum Direction: Sendable { case read, write }

    struct WatchEntry {
        var fd: Int32
        var reading: Bool
        var writing: Bool
        /// Whether the descriptor is in the epoll set: a watch with no interest is taken
        /// out, so a hung-up descriptor that nobody reads cannot report itself for ever.
        var added: Bool
        var handler: @Sendable (Readiness) -> Void
    }

    struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Void, any Error>
        var timerID: UInt64?
    }

    struct Interest {
        var fd: Int32
        // Edge-triggered epoll reports the readiness a descriptor already has
        // when it is added, so both start false.
        var readable = false
        var writable = false
        var hungUp = false
        /// Error and hang-up reports so far, so a stale one is told from a new one.
        var hangUps: UInt64 = 0
        var reader: Waiter?
        var writer: Waiter?
    }

    enum TimerAction {
        case resume(CheckedContinuation<Void, any Error>)
        case expireWaiter(registration: UInt64, waiter: UInt64, direction: Direction)
        case run(@Sendable () -> Void)
    }

    struct State {
        // Ids start above the selector's own tokens, so a registration's id is its token.
        var nextID: UInt64 = 16
        var interests: [UInt64: Interest] = [:]
        var watches: [UInt64: WatchEntry] = [:]
        var timers = EventLoopTimerQueue<TimerAction>()
        var armedDeadline: UInt64?
        var submitted: [@Sendable () -> Void] = []
        var stopping = false

        mutating func makeID() -> UInt64 {
            nextID &+= 1
            return nextID
        }
    }

    let selector: EpollSelector
    let state = Mutex(State())

    private static let sharedLoop = Result { () throws(EventLoopError) in try KernelEventLoop() }

    /// The process-wide loop, started on first use.
    public static func shared() throws(EventLoopError) -> KernelEventLoop {
        try sharedLoop.get()
    }

    /// Starts a loop on a new thread.
    public init() throws(EventLoopError) {
        selector = try EpollSelector()
        let box = Unmanaged.passRetained(ThreadBox(loop: self)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { argument in
            let box = Unmanaged<ThreadBox>.fromOpaque(argument!).takeRetainedValue()
            box.loop.run()
            return nil
        }, box)
        guard result == 0 else {
            Unmanaged<ThreadBox>.fromOpaque(box).release()
            selector.close()
            throw EventLoopError(kind: .system, errno: result, operation: "pthread_create")
        }
        pthread_detach(thread)
    }

    private final class ThreadBox {
        let loop: KernelEventLoop
        init(loop: KernelEventLoop) { self.loop = loop }
    }

    /// Monotonic time in nanoseconds, the loop's clock.
    public static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// `duration` in nanoseconds, negative ones as 0 and huge ones capped far in the future.
    public static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        if seconds < 0 { return 0 }
        let whole = UInt64(clamping: seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if whole.overflow { return UInt64.max / 2 }
        return whole.partialValue &+ UInt64(max(0, attoseconds) / 1_000_000_000)
    }

    /// The number of file descriptors registered, for tests and diagnostics.
    public var registrationCount: Int { state.withLock { $0.interests.count } }

    /// The number of armed timers, for tests and diagnostics.
    public var timerCount: Int { state.withLock { $0.timers.count } }

    /// The number of watched descriptors, for tests and diagnostics.
    public var watchCount: Int { state.withLock { $0.watches.count } }
}
