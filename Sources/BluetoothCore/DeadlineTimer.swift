/// The one wake-up kept for a set of sans-I/O engines: they report deadlines, and only
/// the earliest needs a timer.
///
/// A value with no clock and no timers of its own: the owner starts the actual wake-up
/// (a sleeping task, an event-loop timer) in the closure ``arm(_:start:)`` calls, and
/// cancels the one it gets back. The state is one enum, so "a deadline without a
/// timer" or "a timer for no deadline" cannot be written. A wake-up that fires for a
/// deadline that moved later costs the owner one empty tick.
public struct DeadlineTimer<Handle> {
    /// Armed or not; an armed timer carries its deadline and the owner's wake-up.
    public enum State {
        case idle
        case armed(at: MonotonicTime, Handle)
    }

    public private(set) var state: State = .idle

    public init() {}

    /// The deadline the armed wake-up is for; nil when idle.
    public var deadline: MonotonicTime? {
        if case .armed(let at, _) = state { return at }
        return nil
    }

    /// Arms for `time` unless a wake-up no later is armed already. Only when a new one is
    /// needed is `start` called, with `time`, to make it. Returns the later wake-up the
    /// new one replaces, for the owner to cancel; nil when there is none to cancel.
    @discardableResult
    public mutating func arm(_ time: MonotonicTime, start: (MonotonicTime) throws -> Handle) rethrows -> Handle? {
        switch state {
        case .armed(let at, _) where at <= time:
            return nil
        case .armed(_, let replaced):
            state = .armed(at: time, try start(time))
            return replaced
        case .idle:
            state = .armed(at: time, try start(time))
            return nil
        }
    }

    /// The armed wake-up ran: the next deadline arms a new one.
    public mutating func fired() { state = .idle }

    /// Forgets the armed wake-up and returns it, for the owner to cancel.
    public mutating func disarm() -> Handle? {
        defer { state = .idle }
        if case .armed(_, let handle) = state { return handle }
        return nil
    }
}

extension DeadlineTimer: Sendable where Handle: Sendable {}
extension DeadlineTimer.State: Sendable where Handle: Sendable {}
