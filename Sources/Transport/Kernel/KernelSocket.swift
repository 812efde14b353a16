import CBlueZ
import EventLoop
import Glibc
import Synchronization

/// A non-blocking descriptor registered with a ``KernelEventLoop``: the shared
/// plumbing under the L2CAP and HCI sockets.
///
/// Every system call runs with the descriptor locked, so `close()` can never
/// race a `recv` into a reused descriptor number.
final class KernelSocket: Sendable {
    let loop: KernelEventLoop
    let registration: KernelEventLoop.Registration
    private let descriptor: Mutex<Int32>
    /// The errno that ended the link, from whichever call saw it first. The kernel
    /// reports a link's end (`sk_err`) to one system call only: when a send on another
    /// task takes it, the reader is left with EAGAIN on a hung-up socket, and must learn
    /// the reason from here.
    private let endingError = Mutex<Int32>(0)

    /// Takes ownership of `fd`, which must already be non-blocking.
    init(adopting fd: Int32, loop: KernelEventLoop) throws {
        do {
            registration = try loop.register(fd)
        } catch {
            Glibc.close(fd)
            throw KernelTransportError(error)
        }
        self.loop = loop
        descriptor = Mutex(fd)
    }

    deinit { close() }

    var isClosed: Bool { descriptor.withLock { $0 < 0 } }

    /// Runs a system call on the open descriptor; throws `.closed` after `close()`.
    /// An error that ends the link is remembered for the calls that come after it.
    func withDescriptor<R>(_ operation: String, _ body: (Int32) throws -> R) throws -> R {
        do {
            return try descriptor.withLock { fd in
                guard fd >= 0 else { throw KernelTransportError(kind: .closed, operation: operation) }
                return try body(fd)
            }
        } catch let error as KernelTransportError {
            noteEnd(error)
            throw error
        }
    }

    /// Repeats a non-blocking call until it stops returning EAGAIN, waiting on
    /// the loop in between. `body` returns nil for "would block".
    func retrying<R>(_ operation: String, direction: KernelEventLoop.Direction, timeout: Duration? = nil,
                     _ body: (Int32) throws -> R?) async throws -> R {
        let deadline = timeout.map { KernelEventLoop.now() &+ KernelEventLoop.nanoseconds($0) }
        while true {
            if let result = try withDescriptor(operation, body) { return result }
            // Would block, yet the loop saw a hang-up: the readiness the loop remembers
            // would wake us at once for ever, so ask the socket whether it is still hung up.
            if let seen = loop.hangUpSeen(registration) { try endIfHungUp(operation, seen: seen) }
            var remaining: Duration?
            if let deadline {
                let now = KernelEventLoop.now()
                guard now < deadline else { throw KernelTransportError(kind: .timedOut, operation: operation) }
                remaining = .nanoseconds(Int64(deadline - now))
            }
            do {
                switch direction {
                case .read: try await loop.waitReadable(registration, timeout: remaining)
                case .write: try await loop.waitWritable(registration, timeout: remaining)
                }
            } catch let error as EventLoopError {
                // Named after the call that waited, not the loop's wait.
                var failure = KernelTransportError(error)
                failure.operation = operation
                throw failure
            }
        }
    }

    func getOption<T: BitwiseCopyable>(level: Int32, name: Int32, as type: T.Type, operation: String) throws -> T {
        try withDescriptor(operation) { fd in
            let value = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<T>.size, alignment: MemoryLayout<T>.alignment)
            defer { value.deallocate() }
            value.initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<T>.size)
            var length = socklen_t(MemoryLayout<T>.size)
            guard getsockopt(fd, level, name, value, &length) == 0 else { throw KernelTransportError.current(operation) }
            return value.load(as: T.self)
        }
    }

    func setOption<T: BitwiseCopyable>(level: Int32, name: Int32, _ value: T, operation: String) throws {
        try withDescriptor(operation) { fd in
            let stored = withUnsafeBytes(of: value) { $0.baseAddress.map { setsockopt(fd, level, name, $0, socklen_t(MemoryLayout<T>.size)) } } ?? -1
            guard stored == 0 else { throw KernelTransportError.current(operation) }
        }
    }

    /// The pending socket error (`SO_ERROR`) of `fd`, 0 when none. For use
    /// inside ``withDescriptor(_:_:)`` or ``retrying(_:direction:timeout:_:)`` bodies.
    static func pendingError(_ fd: Int32) -> Int32 {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 ? error : errno
    }

    /// POLLRDHUP, which Glibc's module leaves out (it needs _GNU_SOURCE).
    static let pollReadHangUp: Int32 = 0x2000

    /// The readiness `fd` has now, from `poll` with a zero timeout.
    static func pollNow(_ fd: Int32, _ events: Int32) -> Int32 {
        var entry = pollfd(fd: fd, events: Int16(events), revents: 0)
        return poll(&entry, 1, 0) > 0 ? Int32(entry.revents) : 0
    }

    /// Keeps the first errno that says the link ended.
    private func noteEnd(_ error: KernelTransportError) {
        guard error.disconnectReason != nil || error.errno == ENOTCONN || error.errno == EPIPE else { return }
        endingError.withLock { if $0 == 0 { $0 = error.errno } }
    }

    /// Throws the link's end when the socket is hung up now (HUP or RDHUP); otherwise the
    /// hang-up the loop saw has passed (an error a later call read), and waits wait again.
    private func endIfHungUp(_ operation: String, seen: UInt64) throws {
        let ended = try withDescriptor(operation) { fd -> Int32? in
            let events = Self.pollNow(fd, POLLIN | POLLOUT)
            guard events & (POLLHUP | Self.pollReadHangUp) != 0 else { return nil }
            let pending = Self.pendingError(fd)
            return pending != 0 ? pending : endingError.withLock { $0 != 0 ? $0 : ECONNRESET }
        }
        guard let ended else {
            loop.clearHangUp(registration, seen: seen)
            return
        }
        throw KernelTransportError(errno: ended, operation: operation)
    }

    /// Leaves the loop and closes the descriptor; idempotent.
    func close() {
        let fd = descriptor.withLock { fd -> Int32 in
            let old = fd
            fd = -1
            return old
        }
        guard fd >= 0 else { return }
        loop.deregister(registration)
        Glibc.close(fd)
    }
}
