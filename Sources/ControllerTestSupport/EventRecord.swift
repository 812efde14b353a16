import Synchronization

/// Everything a source of events produced, in order, for a test that checks what came
/// and waits for what has not come yet. A wait wakes on the event itself, not on a poll.
public final class EventRecord<Event: Sendable>: Sendable {
    private struct State {
        var events: [Event] = []
        var listeners: [Int: AsyncStream<Event>.Continuation] = [:]
        var nextListener = 0
        var finished = false
    }

    private let state = Mutex(State())

    public init() {}

    /// What came so far.
    public var events: [Event] { state.withLock { $0.events } }

    public func append(_ event: Event) {
        // Yielding under the lock keeps every listener's order the record's order.
        state.withLock { state in
            state.events.append(event)
            for listener in state.listeners.values { listener.yield(event) }
        }
    }

    /// No more events will come: a wait for one that has not come fails now.
    public func finish() {
        state.withLock { state in
            state.finished = true
            for listener in state.listeners.values { listener.finish() }
            state.listeners = [:]
        }
    }

    /// The first event, after `skipping` earlier matches, that `match` turns into a value:
    /// from those already recorded, or else the next ones as they come.
    @discardableResult
    public func waitFor<T: Sendable>(_ what: String, skipping: Int = 0, limit: Duration = hangGuard,
                                     _ match: @escaping @Sendable (Event) -> T?) async throws -> T {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self)
        // The past and the subscription in one step, so no event falls between them.
        let (past, listener) = state.withLock { state -> ([Event], Int?) in
            guard !state.finished else { return (state.events, nil) }
            let id = state.nextListener
            state.nextListener += 1
            state.listeners[id] = continuation
            return (state.events, id)
        }
        defer {
            if let listener { _ = state.withLock { $0.listeners.removeValue(forKey: listener) } }
            continuation.finish()
        }
        var remaining = skipping
        for event in past {
            guard let value = match(event) else { continue }
            if remaining == 0 { return value }
            remaining -= 1
        }
        if listener == nil { throw WaitFailed("\(what): the events ended without it; \(Self.tail(past))") }
        let needed = remaining
        do {
            return try await within(what, limit: limit) {
                var remaining = needed
                for await event in stream {
                    guard let value = match(event) else { continue }
                    if remaining == 0 { return value }
                    remaining -= 1
                }
                throw WaitFailed("\(what): the events ended without it")
            }
        } catch let failure as WaitFailed {
            throw WaitFailed("\(failure.description); \(Self.tail(events))")
        }
    }

    /// The last events, enough to tell what happened instead.
    private static func tail(_ events: [Event]) -> String {
        "\(events.count) events" + (events.isEmpty ? "" : ", the last: \(events.suffix(20))")
    }

    /// The first event, after `skipping` earlier ones it accepts, that `predicate` accepts.
    /// (Preferred over the generic form for a closure that returns Bool, which would
    /// otherwise match every event as an optional Bool.)
    @discardableResult
    public func waitFor(_ what: String, skipping: Int = 0, limit: Duration = hangGuard,
                        _ predicate: @escaping @Sendable (Event) -> Bool) async throws -> Event {
        try await waitFor(what, skipping: skipping, limit: limit) { (event: Event) -> Event? in predicate(event) ? event : nil }
    }
}
