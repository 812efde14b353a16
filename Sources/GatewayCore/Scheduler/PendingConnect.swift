import BluetoothCore

/// The controller's one pending LE Create Connection (Vol 4 Part E §7.8.12 allows only
/// one at a time). Each state is a struct of its own.
enum PendingConnect: Hashable, Sendable {
    case none
    case connecting(PendingAttempt)
    case cancelling(CancellingAttempt)

    /// The device the pending command is for.
    var device: DeviceID? {
        switch self {
        case .none: nil
        case .connecting(let a): a.device
        case .cancelling(let c): c.device
        }
    }
}

/// LE Create Connection was sent and has not completed.
struct PendingAttempt: Hashable, Sendable {
    var device: DeviceID
    var started: MonotonicTime
    /// When it is cancelled.
    var deadline: MonotonicTime
}

/// LE Create Connection Cancel was sent; its Connection Complete has not come in.
struct CancellingAttempt: Hashable, Sendable {
    var device: DeviceID
    /// True when the attempt timed out (the device backs off); false when it was simply
    /// no longer wanted (removed, or its policy changed).
    var timedOut: Bool
    /// When the controller is declared stuck.
    var deadline: MonotonicTime
    /// ``SchedulerAction/resetAdapter`` was already asked for.
    var resetRequested = false
}
