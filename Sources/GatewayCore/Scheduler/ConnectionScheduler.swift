import BluetoothCore

/// Who one adapter connects to, and when, as a sans-I/O state machine.
///
/// Devices come in with their ``ConnectPolicy``; HCI facts (Connection Complete,
/// Disconnection Complete, a failed Command Status), advertisements, the gateway's
/// "work done" and "asked for" and the passing of time (``tick(at:)``) go in; each
/// answers with a ``GatewayStep`` of ``SchedulerAction``s and the next deadline.
///
/// The rules, each against a failure gateways in the field show:
/// - At most one LE Create Connection is pending per controller, as the spec requires. It
///   runs on its own timeout, after which it is cancelled, and nothing new starts until
///   the cancel's Connection Complete comes in (so no "Command Disallowed" storm).
/// - Slots are counted from Connection Complete and Disconnection Complete only: an
///   attempt whose completion never came holds none, an incoming link holds one, a link
///   we asked to drop holds its slot until the controller says it is gone.
/// - Priority `keep`, then `poll`, then `on_demand`; within one, whoever waited longest.
/// - The wait after a failure follows its HCI reason: 0x3E retries soon, 0x0C/0x0D/0x09
///   (no room, busy) wait for a link to go down, anything else (0x08 supervision
///   timeout, our connect timeout, ...) backs off exponentially. A streak ends with a
///   link that lasted ``SchedulerConfiguration/stableLink`` or was ended on purpose, so
///   a link that flaps keeps backing off; the device's next advertisement cuts a
///   streak's wait short once.
public struct ConnectionScheduler: Sendable {
    /// Changes apply to the next decision.
    public var configuration: SchedulerConfiguration
    var devices: [DeviceID: ScheduledDevice] = [:]
    /// Every link the controller reported up, by handle, with its device when known.
    var links: [UInt16: DeviceID?] = [:]
    var pending: PendingConnect = .none
    private var random: any RandomNumberGenerator & Sendable

    public init(configuration: SchedulerConfiguration = SchedulerConfiguration(),
                random: any RandomNumberGenerator & Sendable) {
        self.configuration = configuration
        self.random = random
    }

    // MARK: Queries

    /// Links the controller reported up and not yet down.
    public var slotsUsed: Int { links.count }
    /// Slots not held by a link (a pending connect holds none).
    public var slotsFree: Int { max(0, configuration.maxConnections - links.count) }
    /// The device whose LE Create Connection (or its cancel) is outstanding.
    public var pendingDevice: DeviceID? { pending.device }
    /// The devices known to this scheduler.
    public var deviceIDs: [DeviceID] { devices.keys.sorted() }

    /// Whether this adapter still holds an attempt or a link of `device`: the pending
    /// connect (or its cancel) is for it, or a link of it is up or going down. A device
    /// removed from this scheduler stays held until that attempt or link has ended, since
    /// a cancel only asks: the controller's Connection Complete may still win the race.
    public func holds(_ device: DeviceID) -> Bool {
        pending.device == device || links.values.contains(.some(device))
    }

    /// Slots the assigned devices will claim: links up plus idle or connecting devices
    /// that want a link now. The pool assigns a device only below the maximum.
    public func committedSlots(at now: MonotonicTime) -> Int {
        var n = links.count
        for (_, d) in devices {
            switch d.link {
            case .idle, .connecting: if d.wantsLink(at: now) { n += 1 }
            case .connected, .disconnecting: break
            }
        }
        return n
    }

    /// One device's state, or nil when unknown.
    public func report(for device: DeviceID) -> DeviceScheduleReport? {
        guard let d = devices[device] else { return nil }
        var retry = DeviceScheduleReport.Retry.now
        let link: DeviceScheduleReport.Link
        switch d.link {
        case .idle(let s):
            link = .idle
            switch s.retry {
            case .now: retry = .now
            case .at(let t): retry = .at(t)
            case .slotFreed: retry = .whenASlotFrees
            }
        case .connecting: link = .connecting
        case .connected(let s): link = .connected(handle: s.handle)
        case .disconnecting(let s): link = .disconnecting(handle: s.handle)
        }
        return DeviceScheduleReport(policy: d.policy, link: link, retry: retry,
                                    failures: d.failures, lastFailure: d.lastFailure)
    }

    /// The earliest time ``tick(at:)`` has work to do.
    public func nextDeadline(at now: MonotonicTime) -> MonotonicTime? {
        var deadline: MonotonicTime?
        switch pending {
        case .connecting(let a): deadline = a.deadline
        case .cancelling(let c): if !c.resetRequested { deadline = c.deadline }
        case .none:
            // Retry timers and poll periods matter only while a connect could start; a
            // slot freeing or the pending connect ending re-runs the choice anyway.
            if links.count < configuration.maxConnections {
                for (_, d) in devices {
                    guard case .idle(let s) = d.link, d.policy.priority != nil else { continue }
                    var t: MonotonicTime?
                    switch s.retry {
                    case .now: t = now
                    case .at(let r): t = r
                    case .slotFreed: t = nil
                    }
                    if case .poll = d.policy, let due = d.pollDue, let r = t { t = max(r, due) }
                    if case .onDemand = d.policy, !d.requested { t = nil }
                    deadline = TimeArithmetic.earliest(deadline, t)
                }
            }
        }
        for (_, d) in devices {
            guard case .connected(let s) = d.link else { continue }
            switch d.policy {
            case .poll: deadline = TimeArithmetic.earliest(deadline, s.since + configuration.pollWorkTimeout)
            case .onDemand: deadline = TimeArithmetic.earliest(deadline, s.lastActivity + configuration.onDemandIdle)
            case .keep, .never: break
            }
        }
        return deadline
    }

    // MARK: Devices

    /// Adds a device, or changes its policy. A device whose new policy no longer wants its
    /// link is disconnected (or its attempt cancelled).
    public mutating func add(_ device: DeviceID, policy: ConnectPolicy, requested: Bool = false,
                             at now: MonotonicTime) -> GatewayStep<SchedulerAction> {
        var actions: [SchedulerAction] = []
        if var d = devices[device] {
            d.policy = policy
            d.requested = d.requested || requested
            devices[device] = d
            if d.policy == .never { dropUnwanted(device, at: now, into: &actions) }
        } else {
            var d = ScheduledDevice(policy: policy)
            d.requested = requested
            devices[device] = d
        }
        return finish(at: now, actions)
    }

    /// Forgets a device: its link is disconnected, its attempt cancelled.
    public mutating func remove(_ device: DeviceID, at now: MonotonicTime) -> GatewayStep<SchedulerAction> {
        var actions: [SchedulerAction] = []
        dropUnwanted(device, at: now, into: &actions)
        devices[device] = nil
        return finish(at: now, actions)
    }

    // MARK: Gateway facts

    /// The device was heard advertising on this adapter: the first advertisement after a
    /// failure retries at once and restarts the growth from the initial delay. The
    /// device is evidently back and listening (a connectable advertisement is followed by
    /// a connect window), and the one-pending-connect rule already spaces attempts, so
    /// waiting out even the initial delay would only add it to every reconnect.
    public mutating func advertisement(from device: DeviceID, at now: MonotonicTime) -> GatewayStep<SchedulerAction> {
        if var d = devices[device], case .idle(var s) = d.link, case .at(let t) = s.retry,
           d.failures > 0, !d.advertisementResetUsed {
            d.failures = 0
            d.advertisementResetUsed = true
            s.retry = .at(min(t, now))
            d.link = .idle(s)
            devices[device] = d
        }
        return finish(at: now, [])
    }

    /// A poll device finished its reads (it is disconnected), or an on-demand device
    /// finished a request (its idle time starts over).
    public mutating func workDone(_ device: DeviceID, at now: MonotonicTime) -> GatewayStep<SchedulerAction> {
        var actions: [SchedulerAction] = []
        if var d = devices[device] {
            switch d.policy {
            case .poll:
                if case .connected(let s) = d.link {
                    d.link = .disconnecting(DisconnectingLink(handle: s.handle))
                    actions.append(.disconnect(handle: s.handle, device: device))
                }
            case .onDemand:
                d.requested = false
                if case .connected(var s) = d.link {
                    s.lastActivity = now
                    d.link = .connected(s)
                }
            case .keep, .never: break
            }
            devices[device] = d
        }
        return finish(at: now, actions)
    }

    /// An on-demand device is wanted (a write queued): connect it, or keep its link from
    /// idling out.
    public mutating func request(_ device: DeviceID, at now: MonotonicTime) -> GatewayStep<SchedulerAction> {
        if var d = devices[device] {
            d.requested = true
            if case .connected(var s) = d.link {
                s.lastActivity = now
                d.link = .connected(s)
            }
            devices[device] = d
        }
        return finish(at: now, [])
    }

    // MARK: HCI facts

    /// LE Connection Complete with status 0. `device` is nil when the peer is not a
    /// configured device (an incoming link): it holds a slot all the same.
    public mutating func connected(handle: UInt16, device: DeviceID?, at now: MonotonicTime) -> GatewayStep<SchedulerAction> {
        var actions: [SchedulerAction] = []
        // A handle reported up twice: whoever held it before has lost its link.
        if let previous = links[handle] ?? nil, previous != device, var p = devices[previous] {
            switch p.link {
            case .connected(let s) where s.handle == handle: p.link = .idle(IdleLink())
            case .disconnecting(let s) where s.handle == handle: p.link = .idle(IdleLink())
            default: break
            }
            devices[previous] = p
        }
        links[handle] = .some(device)
        // A link we cancelled because it was no longer wanted (rather than for its
        // timeout) completed anyway, racing the cancel: drop it.
        var unwanted = false
        if let device, pending.device == device {
            if case .cancelling(let c) = pending, !c.timedOut { unwanted = true }
            if devices[device] == nil { unwanted = true }
            pending = .none
        }
        if let device, var d = devices[device] {
            d.link = .connected(ConnectedLink(handle: handle, since: now, lastActivity: now))
            d.advertisementResetUsed = false
            if case .poll(let every) = d.policy { d.pollDue = (d.lastAttempt ?? now) + every }
            if unwanted {
                d.link = .disconnecting(DisconnectingLink(handle: handle))
                actions.append(.disconnect(handle: handle, device: device))
            }
            devices[device] = d
        } else if unwanted {
            // A removed device's attempt completed after all.
            actions.append(.disconnect(handle: handle, device: device))
        }
        return finish(at: now, actions)
    }

    /// The pending connect ended without a link: LE Connection Complete with a non-zero
    /// status, or a failed Command Status for LE Create Connection. After our cancel the
    /// status (usually 0x02) is not the device's fault; the timeout is.
    public mutating func connectFailed(_ reason: HCIReason, at now: MonotonicTime) -> GatewayStep<SchedulerAction> {
        switch pending {
        case .none:
            break
        case .connecting(let a):
            pending = .none
            fail(a.device, .connectFailed(reason), at: now)
        case .cancelling(let c):
            pending = .none
            if c.timedOut {
                fail(c.device, .connectTimeout, at: now)
            } else if var d = devices[c.device], case .connecting = d.link {
                d.link = .idle(IdleLink())
                devices[c.device] = d
            }
        }
        return finish(at: now, [])
    }

    /// Disconnection Complete: the only thing that frees a slot. Devices that were told
    /// "no room" may try again.
    public mutating func disconnected(handle: UInt16, reason: HCIReason, at now: MonotonicTime) -> GatewayStep<SchedulerAction> {
        guard let entry = links.removeValue(forKey: handle) else { return finish(at: now, []) }
        releaseSlotWaiters()
        if let device = entry, var d = devices[device] {
            let asked: Bool
            switch d.link {
            case .connected(let s) where s.handle == handle:
                asked = false
                if now.duration(since: s.since) >= configuration.stableLink { d.failures = 0 }
            case .disconnecting(let s) where s.handle == handle:
                asked = true
            default:
                return finish(at: now, [])
            }
            d.link = .idle(IdleLink())
            if asked || reason == .localHostTerminated {
                // Ended on purpose: the link did its job.
                d.failures = 0
                if case .onDemand = d.policy, asked { d.requested = false }
                devices[device] = d
            } else {
                devices[device] = d
                fail(device, .disconnected(reason), at: now)
            }
        }
        return finish(at: now, [])
    }

    /// The controller was reset or powered off: every link and the pending connect are
    /// gone, and nobody is to blame.
    public mutating func adapterReset(at now: MonotonicTime) -> GatewayStep<SchedulerAction> {
        links.removeAll()
        pending = .none
        for (id, var d) in devices {
            d.link = .idle(IdleLink())
            devices[id] = d
        }
        return finish(at: now, [])
    }

    /// Forgets every device, link and attempt without asking for anything: the adapter is
    /// gone, so there is nothing to send to.
    mutating func clear() {
        devices.removeAll()
        links.removeAll()
        pending = .none
    }

    /// Time passed: cancels a connect that outlived its timeout, asks for a reset when the
    /// cancel went unanswered, ends finished poll links and idle on-demand links, and
    /// starts the next connect.
    public mutating func tick(at now: MonotonicTime) -> GatewayStep<SchedulerAction> {
        var actions: [SchedulerAction] = []
        switch pending {
        case .none: break
        case .connecting(let a):
            if now >= a.deadline {
                pending = .cancelling(CancellingAttempt(device: a.device, timedOut: true,
                                                        deadline: now + configuration.cancelTimeout))
                actions.append(.cancelConnect(a.device))
            }
        case .cancelling(var c):
            if now >= c.deadline && !c.resetRequested {
                c.resetRequested = true
                pending = .cancelling(c)
                actions.append(.resetAdapter)
            }
        }
        // Only the links past their time, in a stable order (`keep` links never are).
        let over = devices.compactMap { id, d -> DeviceID? in
            guard case .connected(let s) = d.link else { return nil }
            switch d.policy {
            case .poll: return now >= s.since + configuration.pollWorkTimeout ? id : nil
            case .onDemand: return now >= s.lastActivity + configuration.onDemandIdle ? id : nil
            case .keep, .never: return nil
            }
        }
        for id in over.sorted() {
            guard var d = devices[id], case .connected(let s) = d.link else { continue }
            d.link = .disconnecting(DisconnectingLink(handle: s.handle))
            devices[id] = d
            actions.append(.disconnect(handle: s.handle, device: id))
        }
        return finish(at: now, actions)
    }

    // MARK: Internals

    /// Ends whatever link or attempt `device` has, because it is no longer wanted.
    private mutating func dropUnwanted(_ device: DeviceID, at now: MonotonicTime, into actions: inout [SchedulerAction]) {
        guard var d = devices[device] else { return }
        switch d.link {
        case .idle, .disconnecting: break
        case .connecting:
            if case .connecting(let a) = pending, a.device == device {
                pending = .cancelling(CancellingAttempt(device: device, timedOut: false,
                                                        deadline: now + configuration.cancelTimeout))
                actions.append(.cancelConnect(device))
            }
        case .connected(let s):
            d.link = .disconnecting(DisconnectingLink(handle: s.handle))
            actions.append(.disconnect(handle: s.handle, device: device))
        }
        devices[device] = d
    }

    /// Records a failure and sets the device's wait by its reason.
    private mutating func fail(_ device: DeviceID, _ failure: SchedulerFailure, at now: MonotonicTime) {
        guard var d = devices[device] else { return }
        d.failures = d.failures == Int.max ? Int.max : d.failures + 1
        d.lastFailure = failure
        if case .poll = d.policy { d.pollDue = nil }
        let gate: RetryGate
        switch failure {
        case .connectFailed(let r) where Self.meansNoRoom(r):
            // Only a link going down makes room; with none up, nothing ever would, so
            // back off instead of waiting forever.
            gate = links.isEmpty ? .at(now + backoffDelay(failures: d.failures)) : .slotFreed
        case .connectFailed(.connectionFailedToBeEstablished) where d.failures <= configuration.soonRetries:
            gate = .at(now + backoffDelay(failures: 1))
        case .connectFailed(.connectionFailedToBeEstablished):
            gate = .at(now + backoffDelay(failures: d.failures - configuration.soonRetries))
        default:
            gate = .at(now + backoffDelay(failures: d.failures))
        }
        d.link = .idle(IdleLink(retry: gate))
        devices[device] = d
    }

    private mutating func backoffDelay(failures: Int) -> Duration {
        // The first failure waits the initial delay: attempt 0.
        configuration.backoff.delay(attempt: failures - 1, random: random.nextFraction())
    }

    /// The controller's "no room" and "busy" answers.
    static func meansNoRoom(_ r: HCIReason) -> Bool {
        r == .limitedResources || r == .commandDisallowed || r == .connectionLimitExceeded
            || r == .memoryCapacityExceeded
    }

    private mutating func releaseSlotWaiters() {
        for (id, var d) in devices {
            if case .idle(var s) = d.link, s.retry == .slotFreed {
                s.retry = .now
                d.link = .idle(s)
                devices[id] = d
            }
        }
    }

    /// Starts the next connect if the controller has none pending and a slot is free,
    /// then reports the next deadline.
    private mutating func finish(at now: MonotonicTime, _ actions: [SchedulerAction]) -> GatewayStep<SchedulerAction> {
        var actions = actions
        if case .none = pending, links.count < configuration.maxConnections, let next = nextCandidate(at: now) {
            let deadline = now + configuration.connectTimeout
            pending = .connecting(PendingAttempt(device: next, started: now, deadline: deadline))
            if var d = devices[next] {
                d.link = .connecting(ConnectingLink(started: now))
                d.lastAttempt = now
                devices[next] = d
            }
            actions.append(.connect(next))
        }
        return GatewayStep(actions: actions, nextDeadline: nextDeadline(at: now))
    }

    /// The idle device that should connect now: lowest priority number, then the one that
    /// last tried longest ago (never first), then by name so the choice is reproducible.
    private func nextCandidate(at now: MonotonicTime) -> DeviceID? {
        var best: (priority: Int, last: UInt64, id: DeviceID)?
        for (id, d) in devices {
            guard let priority = d.policy.priority, case .idle(let s) = d.link, d.wantsLink(at: now) else { continue }
            switch s.retry {
            case .now: break
            case .at(let t): if t > now { continue }
            case .slotFreed: continue
            }
            let key = (priority, d.lastAttempt.map { $0.nanoseconds &+ 1 } ?? 0, id)
            if let b = best, (b.priority, b.last, b.id) <= key { continue }
            best = key
        }
        return best?.id
    }
}
