import Synchronization

/// Fans values out to any number of `AsyncStream` listeners. Listeners that arrive late
/// see only what comes after they subscribed, plus `latest` when asked.
final class Broadcast<Element: Sendable>: Sendable {
    private struct State {
        var next = 0
        var listeners: [Int: AsyncStream<Element>.Continuation] = [:]
        var latest: Element?
        var finished = false
    }

    private let state: Mutex<State>
    private let bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy

    /// Each listener keeps at most this many undelivered values (the newest), so a
    /// listener that stops reading cannot make memory grow without bound.
    static var defaultBufferLimit: Int { 4096 }

    init(latest: Element? = nil,
         bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy = .bufferingNewest(defaultBufferLimit)) {
        state = Mutex(State(latest: latest))
        self.bufferingPolicy = bufferingPolicy
    }

    /// The last value yielded (or the initial one).
    var latest: Element? { state.withLock { $0.latest } }

    /// A new listener; with `replayLatest` it starts with the current value.
    func stream(replayLatest: Bool = false) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: bufferingPolicy)
        let id: Int? = state.withLock { s in
            if replayLatest, let latest = s.latest { continuation.yield(latest) }
            if s.finished { return nil }
            let id = s.next
            s.next += 1
            s.listeners[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.listeners.removeValue(forKey: id) }
        }
        return stream
    }

    func yield(_ value: Element) {
        let listeners = state.withLock { s -> [AsyncStream<Element>.Continuation] in
            s.latest = value
            return Array(s.listeners.values)
        }
        for listener in listeners { listener.yield(value) }
    }

    func finish() {
        let listeners = state.withLock { s -> [AsyncStream<Element>.Continuation] in
            s.finished = true
            defer { s.listeners.removeAll() }
            return Array(s.listeners.values)
        }
        for listener in listeners { listener.finish() }
    }
}
