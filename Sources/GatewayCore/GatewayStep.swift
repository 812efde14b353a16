import BluetoothCore

/// What one input to a gateway decision machine produced: the actions to carry out, in
/// order, and the earliest time the machine next wants `tick(at:)` (nil when only a new
/// input can change anything). Every machine in this module answers every input with one,
/// so the gateway's event loop has a single shape to drive.
public struct GatewayStep<Action: Hashable & Sendable>: Hashable, Sendable {
    /// What to do, in order.
    public var actions: [Action]
    /// Call `tick(at:)` no later than this.
    public var nextDeadline: MonotonicTime?

    public init(actions: [Action] = [], nextDeadline: MonotonicTime? = nil) {
        self.actions = actions
        self.nextDeadline = nextDeadline
    }
}

/// The lease works on wall-clock seconds (its `until` is compared across machines), so its
/// steps carry a wall-clock deadline instead.
public struct LeaseStep: Hashable, Sendable {
    /// What to do, in order.
    public var actions: [LeaseAction]
    /// Call ``DeviceLease/tick(at:)`` no later than this wall-clock time (seconds since 1970).
    public var nextDeadline: Double?

    public init(actions: [LeaseAction] = [], nextDeadline: Double? = nil) {
        self.actions = actions
        self.nextDeadline = nextDeadline
    }
}
