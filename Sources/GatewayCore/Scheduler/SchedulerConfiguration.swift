import BluetoothCore

/// The knobs of one adapter's ``ConnectionScheduler``.
public struct SchedulerConfiguration: Hashable, Sendable {
    /// Links this adapter may hold (the config's `max_connections`), at least 1.
    public var maxConnections: Int
    /// How long LE Create Connection may stay pending before it is cancelled.
    public var connectTimeout: Duration
    /// How long the cancel may go unanswered before the controller is declared stuck.
    public var cancelTimeout: Duration
    /// Waits after failures.
    public var backoff: Backoff
    /// Consecutive 0x3E failures that retry at the backoff's initial delay before the waits grow.
    public var soonRetries: Int
    /// An on-demand device is disconnected after this long without activity.
    public var onDemandIdle: Duration
    /// A poll device whose work is not reported done by then is disconnected anyway.
    public var pollWorkTimeout: Duration
    /// A link that lasted this long clears the device's failure streak when it drops; a
    /// link that flaps sooner keeps growing the wait.
    public var stableLink: Duration

    public init(maxConnections: Int = 5, connectTimeout: Duration = .seconds(10),
                cancelTimeout: Duration = .seconds(5), backoff: Backoff = .connectRetry,
                soonRetries: Int = 3, onDemandIdle: Duration = .seconds(30),
                pollWorkTimeout: Duration = .seconds(60), stableLink: Duration = .seconds(30)) {
        self.maxConnections = max(1, maxConnections)
        self.connectTimeout = max(.zero, connectTimeout)
        self.cancelTimeout = max(.zero, cancelTimeout)
        self.backoff = backoff
        self.soonRetries = max(0, soonRetries)
        self.onDemandIdle = max(.zero, onDemandIdle)
        self.pollWorkTimeout = max(.zero, pollWorkTimeout)
        self.stableLink = max(.zero, stableLink)
    }
}

extension Backoff {
    /// A device's wait before its next connect attempt after a failure: 0.25 s doubling
    /// to 5 min, moved ±20 % so that gateways that lost the same peers do not retry in
    /// lockstep.
    public static let connectRetry = Backoff(initialDelay: .milliseconds(250), maximumDelay: .seconds(300),
                                             jitter: 0.2, jitterDirection: .eitherWay)
}
