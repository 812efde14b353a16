import BluetoothCore

/// One device's availability inputs and the last state published.
struct TrackedDevice: Hashable, Sendable {
    /// A `keep` device: its link alone says whether it is there.
    var followsLink: Bool
    var learner: IntervalLearner
    var linked = false
    /// When the device last proved it was there: its last packet or its link's end.
    var lastSign: MonotonicTime?
    /// What was last published (nil: nothing yet).
    var published: Bool?
}
