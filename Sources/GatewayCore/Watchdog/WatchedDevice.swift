import BluetoothCore

/// One subscription's learning and silence state.
struct WatchedSubscription: Hashable, Sendable {
    var learner: IntervalLearner
    /// Since when silence is measured: the last notification, or the CCCD write.
    var since: MonotonicTime?
    /// The alarm for the current silence was raised; cleared by the next notification.
    var alarmed = false
}

/// One device's desired set and link.
struct WatchedDevice: Hashable, Sendable {
    var desired: [DesiredSubscription: WatchedSubscription] = [:]
    var connected = false
}
