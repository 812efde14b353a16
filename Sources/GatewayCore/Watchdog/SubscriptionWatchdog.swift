import BluetoothCore

/// Subscriptions as desired state, per `keep` device, as a sans-I/O machine.
///
/// After every (re)connect it asks for every desired CCCD to be written, since a peer
/// without a bond forgets them and a GATT cache hit skips discovery. It learns each
/// subscription's notification interval (median of recent gaps) and, when nothing
/// arrives for `5 ×` that interval, asks once per silence to read the CCCD and
/// subscribe again. Notifications for subscriptions not desired are ignored, so memory
/// is bounded by the config.
public struct SubscriptionWatchdog: Sendable {
    public var configuration: WatchdogConfiguration
    var devices: [DeviceID: WatchedDevice] = [:]

    public init(configuration: WatchdogConfiguration = WatchdogConfiguration()) {
        self.configuration = configuration
    }

    /// The learned interval of one subscription.
    public func learnedInterval(of device: DeviceID, _ subscription: DesiredSubscription) -> Duration? {
        devices[device]?.desired[subscription]?.learner.interval(minimumSamples: configuration.minimumSamples)
    }

    /// The earliest time ``tick(at:)`` has work to do.
    public var nextDeadline: MonotonicTime? {
        var deadline: MonotonicTime?
        for (_, d) in devices where d.connected {
            for (_, s) in d.desired { deadline = TimeArithmetic.earliest(deadline, alarmAt(s)) }
        }
        return deadline
    }

    /// Sets a device's desired subscriptions (empty forgets the device). On a live link
    /// the new ones are written at once; dropped ones are just no longer watched (the
    /// gateway turns their CCCDs off).
    public mutating func setDesired(_ device: DeviceID, _ subscriptions: [DesiredSubscription],
                                    at now: MonotonicTime) -> GatewayStep<WatchdogAction> {
        var actions: [WatchdogAction] = []
        guard !subscriptions.isEmpty else {
            devices[device] = nil
            return finish(actions)
        }
        var d = devices[device] ?? WatchedDevice()
        var kept: [DesiredSubscription: WatchedSubscription] = [:]
        var added: [DesiredSubscription] = []
        for s in Set(subscriptions) {
            if let old = d.desired[s] {
                kept[s] = old
            } else {
                kept[s] = WatchedSubscription(learner: IntervalLearner(capacity: configuration.samples),
                                              since: d.connected ? now : nil)
                added.append(s)
            }
        }
        d.desired = kept
        devices[device] = d
        if d.connected && !added.isEmpty { actions.append(.writeCCCDs(device, added.sorted())) }
        return finish(actions)
    }

    /// The link is up (first connect or reconnect): write every desired CCCD again.
    public mutating func connected(_ device: DeviceID, at now: MonotonicTime) -> GatewayStep<WatchdogAction> {
        var actions: [WatchdogAction] = []
        if var d = devices[device] {
            d.connected = true
            for (key, var s) in d.desired {
                s.since = now
                s.alarmed = false
                d.desired[key] = s
            }
            devices[device] = d
            actions.append(.writeCCCDs(device, d.desired.keys.sorted()))
        }
        return finish(actions)
    }

    /// The link went down: nothing is watched until it is back.
    public mutating func disconnected(_ device: DeviceID, at now: MonotonicTime) -> GatewayStep<WatchdogAction> {
        if var d = devices[device] {
            d.connected = false
            devices[device] = d
        }
        return finish([])
    }

    /// A notification (or indication) on a desired subscription.
    public mutating func notification(_ device: DeviceID, _ subscription: DesiredSubscription,
                                      at now: MonotonicTime) -> GatewayStep<WatchdogAction> {
        record(device, subscription, at: now)
        return finish([])
    }

    /// A batch of notifications, each subscription's times in arrival order: the same as
    /// ``notification(_:_:at:)`` for each, but the next deadline (a walk over every
    /// subscription) is found once for the batch, not once per value. A gateway hands
    /// over a second's arrivals of a thousand devices this way.
    public mutating func notifications(_ batch: [(device: DeviceID, subscription: DesiredSubscription, times: [MonotonicTime])])
        -> GatewayStep<WatchdogAction> {
        for entry in batch {
            for time in entry.times { record(entry.device, entry.subscription, at: time) }
        }
        return finish([])
    }

    private mutating func record(_ device: DeviceID, _ subscription: DesiredSubscription, at now: MonotonicTime) {
        if var d = devices[device], var s = d.desired[subscription] {
            // A gap that holds a reconnect is not the peer's interval.
            let fresh = s.since.map { $0 > (s.learner.last ?? $0) } ?? false
            s.learner.arrival(at: now, learn: !fresh && !s.alarmed)
            s.since = max(s.since ?? now, now)
            s.alarmed = false
            d.desired[subscription] = s
            devices[device] = d
        }
    }

    /// Time passed: subscriptions silent too long are re-subscribed, once per silence.
    public mutating func tick(at now: MonotonicTime) -> GatewayStep<WatchdogAction> {
        var actions: [WatchdogAction] = []
        // Only the devices with a silence due, in a stable order (most ticks find none).
        let due = devices.compactMap { id, d in
            d.connected && d.desired.values.contains { s in alarmAt(s).map { now >= $0 } ?? false } ? id : nil
        }
        for id in due.sorted() {
            guard var d = devices[id] else { continue }
            for key in d.desired.keys.sorted() {
                guard var s = d.desired[key], let at = alarmAt(s), now >= at else { continue }
                s.alarmed = true
                d.desired[key] = s
                actions.append(.resubscribe(id, key))
            }
            devices[id] = d
        }
        return finish(actions)
    }

    // MARK: Internals

    private func alarmAt(_ s: WatchedSubscription) -> MonotonicTime? {
        guard !s.alarmed, let since = s.since,
              let interval = s.learner.interval(minimumSamples: configuration.minimumSamples) else { return nil }
        let silence = TimeArithmetic.duration(TimeArithmetic.seconds(interval) * configuration.silenceMultiplier)
        return since + max(silence, configuration.minimumSilence)
    }

    private func finish(_ actions: [WatchdogAction]) -> GatewayStep<WatchdogAction> {
        GatewayStep(actions: actions, nextDeadline: nextDeadline)
    }
}
