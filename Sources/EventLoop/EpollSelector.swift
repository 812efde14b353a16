import CEpoll
import Glibc

/// The kernel's readiness interface under ``KernelEventLoop``: one epoll set, an
/// `eventfd` that wakes the loop thread, and a `timerfd` that fires at the earliest
/// deadline. Every epoll, eventfd and timerfd call of the loop is here, so the loop
/// itself is bookkeeping over tokens and deadlines.
struct EpollSelector: Sendable {
    /// The token the wake-up descriptor reports with; registrations use larger ones.
    static let wakeToken: UInt64 = 1
    /// The token the timer descriptor reports with.
    static let timerToken: UInt64 = 2

    /// One readiness report, as epoll gave it.
    struct Event {
        var token: UInt64
        /// Input, or the peer shut its writing side (`EPOLLIN`, `EPOLLRDHUP`).
        var readable: Bool
        /// Room to write (`EPOLLOUT`).
        var writable: Bool
        /// An error or hang-up (`EPOLLERR`, `EPOLLHUP`).
        var hungUp: Bool
    }

    /// The reports of one ``wait(_:)``; reused from wait to wait, so nothing is allocated per pass.
    struct Batch: ~Copyable {
        fileprivate let events: UnsafeMutablePointer<epoll_event>
        let capacity: Int
        private(set) var count = 0

        init(capacity: Int) {
            self.capacity = capacity
            events = .allocate(capacity: capacity)
        }

        deinit { events.deallocate() }

        fileprivate mutating func setCount(_ count: Int) { self.count = count }

        subscript(index: Int) -> Event {
            let event = events[index]
            let flags = event.events
            return Event(token: event.data.u64,
                         readable: flags & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0,
                         writable: flags & EPOLLOUT.rawValue != 0,
                         hungUp: flags & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0)
        }
    }

    private let epollFD: Int32
    private let wakeFD: Int32
    private let timerFD: Int32

    /// Opens the three descriptors and puts the wake-up and timer ones in the set.
    init() throws(EventLoopError) {
        let epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw .current("epoll_create1") }
        let wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeFD >= 0 else {
            let error = EventLoopError.current("eventfd")
            Glibc.close(epollFD)
            throw error
        }
        let timerFD = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard timerFD >= 0 else {
            let error = EventLoopError.current("timerfd_create")
            Glibc.close(epollFD)
            Glibc.close(wakeFD)
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
                let error = EventLoopError.current("epoll_ctl")
                close()
                throw error
            }
        }
    }

    /// Closes the three descriptors; the loop thread calls it once, as it ends.
    func close() {
        Glibc.close(epollFD)
        Glibc.close(wakeFD)
        Glibc.close(timerFD)
    }

    // MARK: - The set

    /// Adds `fd`, reported with `token`. Edge-triggered interest reports each change of
    /// readiness once (a registration's waits); level-triggered reports it on every pass
    /// while it lasts (a watch's handler).
    func add(_ fd: Int32, token: UInt64, reading: Bool, writing: Bool, edgeTriggered: Bool) throws(EventLoopError) {
        try control(EPOLL_CTL_ADD, fd, token: token, reading: reading, writing: writing, edgeTriggered: edgeTriggered)
    }

    /// Changes what `fd` is reported for.
    func modify(_ fd: Int32, token: UInt64, reading: Bool, writing: Bool, edgeTriggered: Bool) throws(EventLoopError) {
        try control(EPOLL_CTL_MOD, fd, token: token, reading: reading, writing: writing, edgeTriggered: edgeTriggered)
    }

    /// Takes `fd` out of the set. A descriptor already closed left the set by itself, so
    /// failure is not reported.
    func remove(_ fd: Int32) {
        var event = epoll_event()
        epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, &event)
    }

    private func control(_ operation: Int32, _ fd: Int32, token: UInt64, reading: Bool, writing: Bool,
                         edgeTriggered: Bool) throws(EventLoopError) {
        var event = epoll_event()
        event.events = (reading ? EPOLLIN.rawValue | EPOLLRDHUP.rawValue : 0) | (writing ? EPOLLOUT.rawValue : 0)
            | (edgeTriggered ? EPOLLET.rawValue : 0)
        event.data.u64 = token
        guard epoll_ctl(epollFD, operation, fd, &event) == 0 else { throw .current("epoll_ctl") }
    }

    // MARK: - Waiting

    /// Blocks until something is ready, and fills `batch`. Returns false when epoll failed
    /// for good; an interrupted wait comes back true with an empty batch.
    func wait(_ batch: inout Batch) -> Bool {
        let count = epoll_wait(epollFD, batch.events, Int32(batch.capacity), -1)
        if count < 0 {
            batch.setCount(0)
            return errno == EINTR
        }
        batch.setCount(Int(count))
        return true
    }

    /// Makes a blocked ``wait(_:)`` return with the wake token; from any thread.
    func wake() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, MemoryLayout<UInt64>.size)
    }

    /// Resets the wake-up descriptor after its token was reported.
    func consumeWake() {
        var value: UInt64 = 0
        _ = Glibc.read(wakeFD, &value, MemoryLayout<UInt64>.size)
    }

    /// Resets the timer descriptor after its token was reported.
    func consumeTimer() {
        var expirations: UInt64 = 0
        _ = Glibc.read(timerFD, &expirations, MemoryLayout<UInt64>.size)
    }

    /// Points the timer at `deadline` (monotonic nanoseconds), or disarms it for nil.
    func arm(_ deadline: UInt64?) {
        var spec = itimerspec()
        if let deadline {
            // Zero would disarm the timer: a deadline already passed fires at once instead.
            let deadline = max(deadline, 1)
            spec.it_value.tv_sec = Int(deadline / 1_000_000_000)
            spec.it_value.tv_nsec = Int(deadline % 1_000_000_000)
        }
        timerfd_settime(timerFD, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }
}
