import CBlueZ
import Glibc
import Synchronization

/// One dedicated thread on `epoll` that serves every kernel socket in the
/// process, with an `eventfd` for wake-ups and a `timerfd` for deadlines.
///
/// Sockets are registered once, edge-triggered; a task that finds a socket
/// would block awaits readiness here instead of parking a thread. Timers for
/// ATT deadlines go through the same loop. Nothing polls and nothing sleeps.
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
    }

    enum Direction: Sendable { case read, write }

    private struct WatchEntry {
        var fd: Int32
        var reading: Bool
        var writing: Bool
        /// Whether the descriptor is in the epoll set: a watch with no interest is taken
        /// out, so a hung-up descriptor that nobody reads cannot report itself for ever.
        var added: Bool
        var handler: @Sendable (Readiness) -> Void
    }

    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Void, any Error>
        var timerID: UInt64?
    }

    private struct Interest {
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

    private enum TimerAction {
        case resume(CheckedContinuation<Void, any Error>)
        case expireWaiter(registration: UInt64, waiter: UInt64, direction: Direction)
        case run(@Sendable () -> Void)
    }

    private struct State {
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

    private static let wakeToken: UInt64 = 1
    private static let timerToken: UInt64 = 2

    private let epollFD: Int32
    private let wakeFD: Int32
    private let timerFD: Int32
    private let state = Mutex(State())

    private static let sharedLoop = Result { try KernelEventLoop() }

    /// The process-wide loop, started on first use.
    public static func shared() throws -> KernelEventLoop {
        try sharedLoop.get()
    }

    /// Starts a loop on a new thread.
    public init() throws {
        let epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw KernelTransportError.current("epoll_create1") }
        let wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeFD >= 0 else {
            let error = KernelTransportError.current("eventfd")
            close(epollFD)
            throw error
        }
        let timerFD = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard timerFD >= 0 else {
            let error = KernelTransportError.current("timerfd_create")
            close(epollFD)
            close(wakeFD)
            throw error
        }
        self.epollFD = epollFD
        self.wakeFD = wakeFD
        self.timerFD = timerFD
        for (fd, token) in [(wakeFD, Self.wakeToken), (timerFD, Self.timerToken)] {
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.u64 = token
            guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else {
                let error = KernelTransportError.current("epoll_ctl")
                close(epollFD); close(wakeFD); close(timerFD)
                throw error
            }
        }
        let box = Unmanaged.passRetained(ThreadBox(loop: self)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { argument in
            let box = Unmanaged<ThreadBox>.fromOpaque(argument!).takeRetainedValue()
            box.loop.run()
            return nil
        }, box)
        guard result == 0 else {
            Unmanaged<ThreadBox>.fromOpaque(box).release()
            close(epollFD); close(wakeFD); close(timerFD)
            throw KernelTransportError(errno: result, operation: "pthread_create")
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

    static func nanoseconds(_ duration: Duration) -> UInt64 {
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

    // MARK: - File descriptors

    /// Registers a non-blocking descriptor for readiness notifications.
    public func register(_ fd: Int32) throws -> Registration {
        let id = state.withLock { state -> UInt64 in
            let id = state.makeID()
            state.interests[id] = Interest(fd: fd)
            return id
        }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue
        event.data.u64 = id
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else {
            let error = KernelTransportError.current("epoll_ctl")
            _ = state.withLock { $0.interests.removeValue(forKey: id) }
            throw error
        }
        return Registration(id: id)
    }

    /// Removes a descriptor from the loop before it is closed; pending waits
    /// fail with ``KernelTransportError/Kind/closed``.
    public func deregister(_ registration: Registration) {
        let (interest, timers) = state.withLock { state -> (Interest?, [TimerAction]) in
            guard let interest = state.interests.removeValue(forKey: registration.id) else { return (nil, []) }
            var timers: [TimerAction] = []
            for waiter in [interest.reader, interest.writer].compactMap({ $0 }) {
                if let timerID = waiter.timerID, let action = state.timers.remove(id: timerID) {
                    timers.append(action)
                }
            }
            return (interest, timers)
        }
        _ = timers  // dropped: their waiters fail below
        guard let interest else { return }
        var event = epoll_event()
        epoll_ctl(epollFD, EPOLL_CTL_DEL, interest.fd, &event)
        let error = KernelTransportError(kind: .closed, operation: "wait")
        interest.reader?.continuation.resume(throwing: error)
        interest.writer?.continuation.resume(throwing: error)
    }

    /// Whether the descriptor reported an error or hang-up since it was registered, or
    /// since ``clearHangUp(_:)``: waits on it then return at once.
    /// Returns the count of such reports, to hand to ``clearHangUp(_:seen:)``; nil when none.
    func hangUpSeen(_ registration: Registration) -> UInt64? {
        state.withLock { state in
            guard let interest = state.interests[registration.id], interest.hungUp else { return nil }
            return interest.hangUps
        }
    }

    /// Forgets a reported error or hang-up that has passed, so waits on the descriptor
    /// wait for its next readiness again; a report that came after `seen` is kept.
    func clearHangUp(_ registration: Registration, seen: UInt64) {
        state.withLock { state in
            guard state.interests[registration.id]?.hangUps == seen else { return }
            state.interests[registration.id]?.hungUp = false
        }
    }

    /// Suspends until the descriptor is readable (or has an error or hang-up
    /// to report), the timeout passes (``KernelTransportError/Kind/timedOut``)
    /// or the task is cancelled.
    public func waitReadable(_ registration: Registration, timeout: Duration? = nil) async throws {
        try await wait(registration, direction: .read, timeout: timeout)
    }

    /// Suspends until the descriptor is writable; see ``waitReadable(_:timeout:)``.
    public func waitWritable(_ registration: Registration, timeout: Duration? = nil) async throws {
        try await wait(registration, direction: .write, timeout: timeout)
    }

    private func wait(_ registration: Registration, direction: Direction, timeout: Duration?) async throws {
        let waiterID = state.withLock { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let immediate = state.withLock { state -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    guard var interest = state.interests[registration.id] else {
                        return .failure(KernelTransportError(kind: .closed, operation: "wait"))
                    }
                    switch direction {
                    case .read:
                        if interest.readable || interest.hungUp {
                            interest.readable = false
                            state.interests[registration.id] = interest
                            return .success(())
                        }
                        if interest.reader != nil { return .failure(KernelTransportError(kind: .busy, operation: "wait for read")) }
                    case .write:
                        if interest.writable || interest.hungUp {
                            interest.writable = false
                            state.interests[registration.id] = interest
                            return .success(())
                        }
                        if interest.writer != nil { return .failure(KernelTransportError(kind: .busy, operation: "wait for write")) }
                    }
                    var timerID: UInt64?
                    if let timeout {
                        let id = state.makeID()
                        timerID = id
                        let deadline = Self.now() &+ Self.nanoseconds(timeout)
                        state.timers.insert(id: id, deadline: deadline,
                                            action: .expireWaiter(registration: registration.id, waiter: waiterID, direction: direction))
                        rearmTimer(&state)
                    }
                    let waiter = Waiter(id: waiterID, continuation: continuation, timerID: timerID)
                    if direction == .read { interest.reader = waiter } else { interest.writer = waiter }
                    state.interests[registration.id] = interest
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let continuation = state.withLock { state in
                takeWaiter(&state, registration: registration.id, waiter: waiterID, direction: direction)
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    private func takeWaiter(_ state: inout State, registration: UInt64, waiter: UInt64,
                            direction: Direction) -> CheckedContinuation<Void, any Error>? {
        guard var interest = state.interests[registration] else { return nil }
        let current = direction == .read ? interest.reader : interest.writer
        guard let current, current.id == waiter else { return nil }
        if direction == .read { interest.reader = nil } else { interest.writer = nil }
        state.interests[registration] = interest
        if let timerID = current.timerID { state.timers.remove(id: timerID) }
        return current.continuation
    }

    // MARK: - Watched descriptors

    /// Serves a non-blocking descriptor with `handler`, called on the loop thread while
    /// the descriptor is ready for what is asked (level-triggered).
    ///
    /// Each call is one turn: the handler should do a bounded amount of work (one read of
    /// a bounded size, say) and return, even if more is ready; the loop calls it again on
    /// its next pass, after every other ready descriptor has had its turn and every due
    /// timer has fired. So one busy descriptor cannot hold up the others or the timers.
    public func watch(_ fd: Int32, reading: Bool, writing: Bool,
                      handler: @escaping @Sendable (Readiness) -> Void) throws -> Watch {
        let id = state.withLock { state -> UInt64 in
            let id = state.makeID()
            state.watches[id] = WatchEntry(fd: fd, reading: reading, writing: writing, added: false, handler: handler)
            return id
        }
        do {
            try state.withLock { state throws(KernelTransportError) in try applyInterest(id, &state) }
        } catch {
            _ = state.withLock { $0.watches.removeValue(forKey: id) }
            throw error
        }
        return Watch(id: id)
    }

    /// Changes what a watched descriptor is served for; from any thread.
    public func setInterest(_ watch: Watch, reading: Bool, writing: Bool) {
        state.withLock { state in
            guard var entry = state.watches[watch.id], entry.reading != reading || entry.writing != writing else { return }
            entry.reading = reading
            entry.writing = writing
            state.watches[watch.id] = entry
            try? applyInterest(watch.id, &state)
        }
    }

    /// Stops serving a descriptor, before it is closed. Its handler is not called again
    /// once this returns, except by a pass already under way on the loop thread; a
    /// handler must therefore tolerate one late call.
    public func unwatch(_ watch: Watch) {
        state.withLock { state in
            guard let entry = state.watches.removeValue(forKey: watch.id), entry.added else { return }
            var event = epoll_event()
            epoll_ctl(epollFD, EPOLL_CTL_DEL, entry.fd, &event)
        }
    }

    /// The number of watched descriptors, for tests and diagnostics.
    public var watchCount: Int { state.withLock { $0.watches.count } }

    /// Brings the epoll set in line with a watch's interest. Called with the lock held.
    private func applyInterest(_ id: UInt64, _ state: inout State) throws(KernelTransportError) {
        guard var entry = state.watches[id] else { return }
        var event = epoll_event()
        event.events = (entry.reading ? EPOLLIN.rawValue | EPOLLRDHUP.rawValue : 0) | (entry.writing ? EPOLLOUT.rawValue : 0)
        event.data.u64 = id
        let wanted = entry.reading || entry.writing
        let operation: Int32
        switch (entry.added, wanted) {
        case (false, false): return
        case (false, true): operation = EPOLL_CTL_ADD
        case (true, true): operation = EPOLL_CTL_MOD
        case (true, false): operation = EPOLL_CTL_DEL
        }
        guard epoll_ctl(epollFD, operation, entry.fd, &event) == 0 else {
            throw KernelTransportError.current("epoll_ctl")
        }
        entry.added = wanted
        state.watches[id] = entry
    }

    // MARK: - Timers and tasks

    /// Suspends for `duration` on the loop's timer; cancellable.
    public func sleep(for duration: Duration) async throws {
        let timerID = state.withLock { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { state -> Bool in
                    if Task.isCancelled { return true }
                    state.timers.insert(id: timerID, deadline: Self.now() &+ Self.nanoseconds(duration),
                                        action: .resume(continuation))
                    rearmTimer(&state)
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let action = state.withLock { $0.timers.remove(id: timerID) }
            if case .resume(let continuation)? = action { continuation.resume(throwing: CancellationError()) }
        }
    }

    /// Runs `body` on the loop thread after `delay`, unless cancelled first.
    @discardableResult
    public func schedule(after delay: Duration, _ body: @escaping @Sendable () -> Void) -> Timer {
        state.withLock { state in
            let id = state.makeID()
            state.timers.insert(id: id, deadline: Self.now() &+ Self.nanoseconds(delay), action: .run(body))
            rearmTimer(&state)
            return Timer(id: id)
        }
    }

    /// Cancels a timer; returns false when it already fired or was cancelled.
    @discardableResult
    public func cancel(_ timer: Timer) -> Bool {
        state.withLock { $0.timers.remove(id: timer.id) } != nil
    }

    /// Runs `body` on the loop thread as soon as possible (wakes it through the eventfd).
    public func execute(_ body: @escaping @Sendable () -> Void) {
        state.withLock { $0.submitted.append(body) }
        wake()
    }

    /// Stops the loop thread and closes its descriptors. Pending waits fail
    /// with ``KernelTransportError/Kind/closed``. The shared loop is never stopped.
    public func shutdown() {
        state.withLock { $0.stopping = true }
        wake()
    }

    private func wake() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, MemoryLayout<UInt64>.size)
    }

    /// Points the timerfd at the earliest deadline. Called with the lock held.
    private func rearmTimer(_ state: inout State) {
        let earliest = state.timers.earliestDeadline()
        guard earliest != state.armedDeadline else { return }
        state.armedDeadline = earliest
        var spec = itimerspec()
        if let earliest {
            let deadline = max(earliest, 1)
            spec.it_value.tv_sec = Int(deadline / 1_000_000_000)
            spec.it_value.tv_nsec = Int(deadline % 1_000_000_000)
        }
        timerfd_settime(timerFD, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    // MARK: - The loop thread

    private enum Work {
        case ready(@Sendable (Readiness) -> Void, Readiness)
        case resume(CheckedContinuation<Void, any Error>)
        case fail(CheckedContinuation<Void, any Error>, any Error)
        case run(@Sendable () -> Void)
    }

    private func run() {
        let capacity = 256
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        defer { events.deallocate() }
        var work: [Work] = []
        work.reserveCapacity(capacity)
        while true {
            let count = epoll_wait(epollFD, events, Int32(capacity), -1)
            if count < 0 {
                if errno == EINTR { continue }
                break
            }
            var stop = false
            state.withLock { state in
                for index in 0..<Int(count) {
                    let event = events[index]
                    switch event.data.u64 {
                    case Self.wakeToken:
                        var value: UInt64 = 0
                        _ = Glibc.read(wakeFD, &value, MemoryLayout<UInt64>.size)
                        for body in state.submitted { work.append(.run(body)) }
                        state.submitted.removeAll(keepingCapacity: true)
                        stop = state.stopping
                    case Self.timerToken:
                        var expirations: UInt64 = 0
                        _ = Glibc.read(timerFD, &expirations, MemoryLayout<UInt64>.size)
                        state.armedDeadline = nil
                        for action in state.timers.popExpired(now: Self.now()) {
                            switch action {
                            case .resume(let continuation): work.append(.resume(continuation))
                            case .run(let body): work.append(.run(body))
                            case .expireWaiter(let registration, let waiter, let direction):
                                if let continuation = takeWaiter(&state, registration: registration, waiter: waiter, direction: direction) {
                                    work.append(.fail(continuation, KernelTransportError(kind: .timedOut, operation: "wait")))
                                }
                            }
                        }
                        rearmTimer(&state)
                    case let id:
                        if let watched = state.watches[id] {
                            let flags = event.events
                            let hungUp = flags & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0
                            work.append(.ready(watched.handler, Readiness(
                                readable: watched.reading && flags & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0,
                                writable: watched.writing && flags & EPOLLOUT.rawValue != 0,
                                hungUp: hungUp)))
                            continue
                        }
                        guard var interest = state.interests[id] else { continue }
                        let flags = event.events
                        if flags & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 {
                            interest.hungUp = true
                            interest.hangUps &+= 1
                        }
                        let readable = flags & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0
                        let writable = flags & (EPOLLOUT.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0
                        if readable {
                            if let reader = interest.reader {
                                interest.reader = nil
                                if let timerID = reader.timerID { state.timers.remove(id: timerID) }
                                work.append(.resume(reader.continuation))
                            } else {
                                interest.readable = true
                            }
                        }
                        if writable {
                            if let writer = interest.writer {
                                interest.writer = nil
                                if let timerID = writer.timerID { state.timers.remove(id: timerID) }
                                work.append(.resume(writer.continuation))
                            } else {
                                interest.writable = true
                            }
                        }
                        state.interests[id] = interest
                    }
                }
            }
            for item in work {
                switch item {
                case .ready(let handler, let readiness): handler(readiness)
                case .resume(let continuation): continuation.resume()
                case .fail(let continuation, let error): continuation.resume(throwing: error)
                case .run(let body): body()
                }
            }
            work.removeAll(keepingCapacity: true)
            if stop { break }
        }
        finish()
    }

    private func finish() {
        let (interests, timers, submitted) = state.withLock { state in
            let interests = state.interests
            state.interests.removeAll()
            state.watches.removeAll()
            let timers = state.timers.popExpired(now: UInt64.max)
            let submitted = state.submitted
            state.submitted.removeAll()
            return (interests, timers, submitted)
        }
        let error = KernelTransportError(kind: .closed, operation: "event loop stopped")
        for interest in interests.values {
            interest.reader?.continuation.resume(throwing: error)
            interest.writer?.continuation.resume(throwing: error)
        }
        for action in timers {
            if case .resume(let continuation) = action { continuation.resume(throwing: error) }
        }
        for body in submitted { body() }
        close(epollFD)
        close(wakeFD)
        close(timerFD)
    }
}
