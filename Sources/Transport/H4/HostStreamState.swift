import EventLoop

/// The stream side of a ``UserlandHost``: its place on the loop, what it has read but not
/// yet framed, what waits to be written, and what the loop serves it for.
struct HostStreamState {
    /// The descriptor's place on the loop.
    enum Registration {
        /// Before ``UserlandHost/start()``.
        case notWatched
        case watched(KernelEventLoop.Watch)
        /// Off the loop and closed: nothing may touch the descriptor again.
        case closed
    }

    var registration = Registration.notWatched
    var decoder = H4StreamDecoder()
    var outbox = H4Outbox()
    /// What the loop serves the descriptor for now.
    var reading = false
    var writing = false
    /// Whole packets were read but not yet handed to the host (the turn's budget ran
    /// out): the next turn starts with them.
    var backlog = false
    /// A turn is queued on the loop (``UserlandHost/queueTurn(_:)``).
    var turnQueued = false
    /// Set while the host is being released: stopping closes at once, without a drain.
    var closingNow = false

    /// The watch, while the descriptor is on the loop.
    var watch: KernelEventLoop.Watch? {
        if case .watched(let watch) = registration { watch } else { nil }
    }

    var isClosed: Bool {
        if case .closed = registration { true } else { false }
    }
}
