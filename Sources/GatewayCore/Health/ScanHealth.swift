import BluetoothCore

/// Watches one scanning adapter for the silent stop gateways in the field suffer, as a
/// sans-I/O machine.
///
/// Once the adapter has heard anything since it started, silence while scanning for
/// ``silenceLimit`` (90 s) restarts the scan; another 90 s of silence resets the adapter;
/// another reports it unrecovered and stops trying until an advertisement comes. Each step
/// is reported. Silence before the first advertisement is not a fault (a quiet room), and
/// time not scanning does not count.
public struct ScanHealth: Sendable {
    public let adapter: AdapterID
    /// Silence that triggers each step.
    public var silenceLimit: Duration
    var window: RateWindow
    var isScanning = false
    /// Heard something since scanning first started: silence now means a fault.
    var armed = false
    /// Silence is measured from here: the last advertisement, the last step, or the
    /// moment scanning resumed.
    var since: MonotonicTime?
    var lastAdvertisement: MonotonicTime?
    /// Steps taken in the current silence: 0 none, 1 restarted, 2 reset, 3 unrecovered.
    var steps = 0

    public init(adapter: AdapterID, silenceLimit: Duration = .seconds(90), windowSeconds: Int = 10) {
        self.adapter = adapter
        self.silenceLimit = max(.seconds(1), silenceLimit)
        window = RateWindow(seconds: windowSeconds)
    }

    /// Advertisements per second over the window, for the adapters topic.
    public func advertisementsPerSecond(at now: MonotonicTime) -> Double { window.perSecond(at: now) }

    /// The earliest time ``tick(at:)`` has work to do.
    public var nextDeadline: MonotonicTime? {
        guard isScanning, armed, steps < 3, let since else { return nil }
        return since + silenceLimit
    }

    /// Scanning started (or was started again by the gateway after a step) or stopped.
    public mutating func scanning(_ on: Bool, at now: MonotonicTime) -> GatewayStep<ScanHealthAction> {
        if on && !isScanning { since = max(since ?? now, now) }
        isScanning = on
        return finish([])
    }

    /// `count` advertisements heard.
    public mutating func advertisements(_ count: Int = 1, at now: MonotonicTime) -> GatewayStep<ScanHealthAction> {
        var actions: [ScanHealthAction] = []
        guard count > 0 else { return finish(actions) }
        window.add(count, at: now)
        if steps > 0 {
            let silent = lastAdvertisement.map { now.duration(since: $0) } ?? .zero
            actions.append(.report(ScanHealthEvent(adapter: adapter, step: .recovered, silentFor: silent)))
        }
        steps = 0
        armed = true
        since = now
        lastAdvertisement = now
        return finish(actions)
    }

    /// Time passed: take the next step if the silence lasted.
    public mutating func tick(at now: MonotonicTime) -> GatewayStep<ScanHealthAction> {
        var actions: [ScanHealthAction] = []
        guard let at = nextDeadline, now >= at else { return finish(actions) }
        steps += 1
        since = now
        let silent = lastAdvertisement.map { now.duration(since: $0) } ?? .zero
        switch steps {
        case 1:
            actions += [.restartScan, .report(ScanHealthEvent(adapter: adapter, step: .restartedScan, silentFor: silent))]
        case 2:
            actions += [.resetAdapter, .report(ScanHealthEvent(adapter: adapter, step: .resetAdapter, silentFor: silent))]
        default:
            actions.append(.report(ScanHealthEvent(adapter: adapter, step: .unrecovered, silentFor: silent)))
        }
        return finish(actions)
    }

    private func finish(_ actions: [ScanHealthAction]) -> GatewayStep<ScanHealthAction> {
        GatewayStep(actions: actions, nextDeadline: nextDeadline)
    }
}
