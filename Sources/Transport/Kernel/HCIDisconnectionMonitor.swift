import EventLoop
import HCI
import Synchronization

/// Learns the exact HCI reason a link went down, which an L2CAP socket only
/// hints at through its `errno`: it watches Disconnection Complete events on
/// one adapter through a raw HCI socket and matches them to connection handles.
///
/// Create it before the links it should explain; one reader serves every link
/// on the adapter.
public final class HCIDisconnectionMonitor: Sendable {
    private struct Record {
        var reason: HCIStatus
        var at: UInt64
    }

    private struct Waiter {
        var handle: UInt16
        var notBefore: UInt64
        var continuation: CheckedContinuation<HCIStatus?, Never>
    }

    private struct State {
        var records: [UInt16: Record] = [:]
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiter: UInt64 = 0
    }

    public let adapterIndex: UInt16
    private let socket: HCISocket
    private let loop: KernelEventLoop
    private let state = Mutex(State())

    public init(adapterIndex: UInt16, loop: KernelEventLoop? = nil) throws {
        let loop = try loop ?? KernelEventLoop.shared()
        self.loop = loop
        self.adapterIndex = adapterIndex
        socket = try HCISocket(adapterIndex: adapterIndex, events: [HCIEvent.Code.disconnectionComplete], loop: loop)
        let socket = self.socket
        Task { [weak self] in
            while true {
                guard let event = try? await socket.nextEvent() else { break }
                guard case .disconnectionComplete(let complete) = event, complete.status.isSuccess else { continue }
                guard let self else { break }
                self.record(handle: complete.handle, reason: complete.reason)
            }
        }
    }

    deinit { socket.close() }

    private func record(handle: UInt16, reason: HCIStatus) {
        let now = KernelEventLoop.now()
        let woken = state.withLock { state -> [CheckedContinuation<HCIStatus?, Never>] in
            state.records[handle] = Record(reason: reason, at: now)
            let matching = state.waiters.filter { $0.value.handle == handle && $0.value.notBefore <= now }
            for id in matching.keys { state.waiters.removeValue(forKey: id) }
            return matching.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume(returning: reason) }
    }

    private func expire(_ id: UInt64) {
        let expired = state.withLock { $0.waiters.removeValue(forKey: id) }
        expired?.continuation.resume(returning: nil)
    }

    /// The reason the link of `socket` went down, waiting up to `timeout` for
    /// the event (the socket can report the failure before the event is read).
    /// Nil when the socket has no known handle or no event arrived in time.
    public func reason(for socket: L2CAPATTSocket, timeout: Duration = .milliseconds(500)) async -> HCIStatus? {
        guard let handle = socket.connectionHandle else { return nil }
        return await reason(forHandle: handle, since: socket.createdAt, timeout: timeout)
    }

    /// The reason the link with `handle` went down after `since` (monotonic
    /// nanoseconds; controllers reuse handles, so older records do not count).
    public func reason(forHandle handle: UInt16, since: UInt64, timeout: Duration) async -> HCIStatus? {
        let loop = self.loop
        return await withCheckedContinuation { (continuation: CheckedContinuation<HCIStatus?, Never>) in
            let result = state.withLock { state -> HCIStatus?? in
                if let record = state.records[handle], record.at >= since { return .some(record.reason) }
                state.nextWaiter += 1
                let id = state.nextWaiter
                state.waiters[id] = Waiter(handle: handle, notBefore: since, continuation: continuation)
                loop.schedule(after: timeout) { [weak self] in self?.expire(id) }
                return .none
            }
            if case .some(let reason) = result { continuation.resume(returning: reason) }
        }
    }

    /// Stops watching; pending lookups end at their time-out.
    public func close() { socket.close() }
}
