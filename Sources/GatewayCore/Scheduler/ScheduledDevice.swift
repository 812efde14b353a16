import BluetoothCore

/// One device's link as the scheduler sees it. Each state is a struct of its own.
enum DeviceLink: Hashable, Sendable {
    case idle(IdleLink)
    case connecting(ConnectingLink)
    case connected(ConnectedLink)
    case disconnecting(DisconnectingLink)
}

/// No link and no attempt; `retry` says when the next attempt may start.
struct IdleLink: Hashable, Sendable {
    var retry: RetryGate = .now
}

/// This device's LE Create Connection is the controller's pending one.
struct ConnectingLink: Hashable, Sendable {
    var started: MonotonicTime
}

/// A link, by its handle.
struct ConnectedLink: Hashable, Sendable {
    var handle: UInt16
    var since: MonotonicTime
    /// Last request or work on this link; an on-demand link idles out from here.
    var lastActivity: MonotonicTime
}

/// We asked for the link to go; the slot is held until Disconnection Complete.
struct DisconnectingLink: Hashable, Sendable {
    var handle: UInt16
}

/// When an idle device may try again.
enum RetryGate: Hashable, Sendable {
    /// At once.
    case now
    /// From this time (a backoff timer).
    case at(MonotonicTime)
    /// When some link on the adapter goes down (the controller said it had no room).
    case slotFreed
}

/// Everything the scheduler keeps per device.
struct ScheduledDevice: Hashable, Sendable {
    var policy: ConnectPolicy
    var link: DeviceLink = .idle(IdleLink())
    /// Consecutive failures since the last stable or deliberately ended link; drives the backoff.
    var failures = 0
    var lastFailure: SchedulerFailure?
    /// An advertisement already cut this failure streak's wait short.
    var advertisementResetUsed = false
    /// The last attempt's start: among equal priorities the longest-waiting goes first.
    var lastAttempt: MonotonicTime?
    /// A poll device's next due time (nil: due now).
    var pollDue: MonotonicTime?
    /// An on-demand device was asked for and the work is not done.
    var requested = false

    /// True when, link aside, this device wants a connection now.
    func wantsLink(at now: MonotonicTime) -> Bool {
        switch policy {
        case .keep: true
        case .poll: pollDue.map { $0 <= now } ?? true
        case .onDemand: requested
        case .never: false
        }
    }
}
