import BluetoothCore

/// Decides `online`/`offline` for every configured device, as a sans-I/O machine.
///
/// - A device with a link is online.
/// - A `keep` device (``register(_:followsLink:)`` with `true`) follows its link: it
///   is offline as soon as the link drops, whatever it advertises.
/// - Any other device (advertisement-only, or poll and on-demand between links) is
///   offline after `3 ×` its learned advertising interval without a packet, never sooner
///   than 60 s after its last packet or link; the interval is the median of its recent
///   gaps (``IntervalLearner``), so slow advertisers are not flapped by a fixed timeout.
///
/// Each change is emitted once. Unregistered devices are ignored, so memory is bounded
/// by the config.
public struct AvailabilityTracker: Sendable {
    public var configuration: AvailabilityConfiguration
    var devices: [DeviceID: TrackedDevice] = [:]

    public init(configuration: AvailabilityConfiguration = AvailabilityConfiguration()) {
        self.configuration = configuration
    }

    /// Starts tracking a device (again, keeping what was learned).
    public mutating func register(_ device: DeviceID, followsLink: Bool) {
        if var d = devices[device] {
            d.followsLink = followsLink
            devices[device] = d
        } else {
            devices[device] = TrackedDevice(followsLink: followsLink,
                                            learner: IntervalLearner(capacity: configuration.samples))
        }
    }

    /// Stops tracking a device.
    public mutating func unregister(_ device: DeviceID) { devices[device] = nil }

    /// What was last published for a device.
    public func availability(of device: DeviceID) -> Bool? { devices[device]?.published }

    /// The learned advertising interval.
    public func learnedInterval(of device: DeviceID) -> Duration? { devices[device]?.learner.interval() }

    /// How long after its last sign of life this device goes offline.
    public func timeout(of device: DeviceID) -> Duration? {
        guard let d = devices[device] else { return nil }
        return timeout(d)
    }

    /// The earliest time ``tick(at:)`` has work to do.
    public var nextDeadline: MonotonicTime? {
        var deadline: MonotonicTime?
        for (_, d) in devices { deadline = TimeArithmetic.earliest(deadline, offlineAt(d)) }
        return deadline
    }

    /// An advertisement from the device.
    public mutating func advertisement(from device: DeviceID, at now: MonotonicTime) -> GatewayStep<AvailabilityAction> {
        var actions: [AvailabilityAction] = []
        if var d = devices[device] {
            // A gap that spans an offline stretch is an absence, not an interval.
            d.learner.arrival(at: now, learn: d.published != false)
            d.lastSign = max(d.lastSign ?? now, now)
            if !d.followsLink || d.linked { publish(device, &d, true, into: &actions) }
            devices[device] = d
        }
        return finish(actions)
    }

    /// The device's link came up.
    public mutating func connected(_ device: DeviceID, at now: MonotonicTime) -> GatewayStep<AvailabilityAction> {
        var actions: [AvailabilityAction] = []
        if var d = devices[device] {
            d.linked = true
            publish(device, &d, true, into: &actions)
            devices[device] = d
        }
        return finish(actions)
    }

    /// The device's link went down.
    public mutating func disconnected(_ device: DeviceID, at now: MonotonicTime) -> GatewayStep<AvailabilityAction> {
        var actions: [AvailabilityAction] = []
        if var d = devices[device] {
            d.linked = false
            if d.followsLink {
                publish(device, &d, false, into: &actions)
            } else {
                // Seen a moment ago; the advertising rule takes over from here.
                d.lastSign = max(d.lastSign ?? now, now)
            }
            devices[device] = d
        }
        return finish(actions)
    }

    /// Time passed: advertisers whose timeout ran out go offline.
    public mutating func tick(at now: MonotonicTime) -> GatewayStep<AvailabilityAction> {
        var actions: [AvailabilityAction] = []
        // Only the devices whose timeout ran out, in a stable order (most ticks find none).
        let due = devices.compactMap { id, d in offlineAt(d).map { now >= $0 } == true ? id : nil }
        for id in due.sorted() {
            guard var d = devices[id], let at = offlineAt(d), now >= at else { continue }
            publish(id, &d, false, into: &actions)
            devices[id] = d
        }
        return finish(actions)
    }

    // MARK: Internals

    private func timeout(_ d: TrackedDevice) -> Duration {
        guard let interval = d.learner.interval() else { return configuration.unlearned }
        let t = TimeArithmetic.seconds(interval) * configuration.intervalMultiplier
        return max(configuration.floor, TimeArithmetic.duration(t))
    }

    private func offlineAt(_ d: TrackedDevice) -> MonotonicTime? {
        guard d.published == true, !d.linked, !d.followsLink, let sign = d.lastSign else { return nil }
        return sign + timeout(d)
    }

    private func publish(_ id: DeviceID, _ d: inout TrackedDevice, _ online: Bool, into actions: inout [AvailabilityAction]) {
        guard d.published != online else { return }
        d.published = online
        actions.append(online ? .online(id) : .offline(id))
    }

    private func finish(_ actions: [AvailabilityAction]) -> GatewayStep<AvailabilityAction> {
        GatewayStep(actions: actions, nextDeadline: nextDeadline)
    }
}
