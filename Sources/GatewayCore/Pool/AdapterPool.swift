import BluetoothCore

/// Several adapters, each with its own ``ConnectionScheduler``, and which serves which
/// device.
///
/// A device is assigned to the first adapter in its affinity order (the config order)
/// that is up, has heard the device within ``recentWindow``, and has a slot its assigned
/// devices do not already claim. It stays there while that adapter can serve it; when the
/// adapter goes down (powered off, reset) its devices are reassigned, and an idle device
/// its adapter no longer hears or has no room for moves to the next adapter that does.
/// Every input answers with a ``GatewayStep`` of ``PoolAction``s.
///
/// A device is placed only while no adapter holds an attempt or a link of it
/// (``ConnectionScheduler/holds(_:)``). One that leaves an adapter while connecting or
/// connected (its affinity changed, its lease was lost and won back) waits, unassigned,
/// until that adapter reports the end: the cancel's Connection Complete, a failure, or the
/// Disconnection Complete of the link that won the race with the cancel. Otherwise a
/// second adapter could connect it while the first attempt still comes up, and the
/// device would hold two links at once. The wait is the old adapter's own state (its
/// pending cancel, its table of links), so there is no second copy to disagree with it.
public struct AdapterPool: Sendable {
    /// An adapter heard a device "recently" within this window.
    public var recentWindow: Duration
    let order: [AdapterID]
    var adapters: [AdapterID: PooledAdapter] = [:]
    var devices: [DeviceID: PooledDevice] = [:]

    /// Adapters in config order (a repeated id keeps its first configuration). Each
    /// scheduler gets its own generator of type `R`, seeded from `seed`.
    public init<R: SeedableRandom>(adapters: [(AdapterID, SchedulerConfiguration)], seed: UInt64,
                                   generator: R.Type = SplitMix64.self, recentWindow: Duration = .seconds(30)) {
        var order: [AdapterID] = []
        var table: [AdapterID: PooledAdapter] = [:]
        var seeds = SplitMix64(seed: seed)
        for (id, configuration) in adapters where table[id] == nil {
            order.append(id)
            table[id] = PooledAdapter(scheduler: ConnectionScheduler(configuration: configuration,
                                                                     random: R(seed: seeds.next())))
        }
        self.order = order
        self.adapters = table
        self.recentWindow = recentWindow
    }

    // MARK: Queries

    /// The adapters in config order.
    public var adapterIDs: [AdapterID] { order }
    /// The adapter serving a device.
    public func assignment(of device: DeviceID) -> AdapterID? { devices[device]?.assigned }
    /// One adapter's scheduler, for its slot counts and device reports.
    public func scheduler(of adapter: AdapterID) -> ConnectionScheduler? { adapters[adapter]?.scheduler }
    /// Whether an adapter is up.
    public func isUp(_ adapter: AdapterID) -> Bool { adapters[adapter]?.up ?? false }

    /// The earliest time ``tick(at:)`` has work to do.
    public func nextDeadline(at now: MonotonicTime) -> MonotonicTime? {
        var deadline: MonotonicTime?
        for id in order { deadline = TimeArithmetic.earliest(deadline, adapters[id]?.scheduler.nextDeadline(at: now)) }
        return deadline
    }

    // MARK: Devices

    /// Adds a device or changes it. `affinity` lists the adapters it may use, best first;
    /// empty means all, in config order. Unknown adapter ids are ignored.
    public mutating func add(_ device: DeviceID, policy: ConnectPolicy, affinity: [AdapterID] = [],
                             at now: MonotonicTime) -> GatewayStep<PoolAction> {
        var actions: [PoolAction] = []
        let known = affinity.filter { adapters[$0] != nil }
        var d = devices[device] ?? PooledDevice(policy: policy, affinity: [])
        d.policy = policy
        d.affinity = known.isEmpty ? order : known
        if let a = d.assigned, !d.affinity.contains(a) || policy == .never {
            unassign(device, &d, at: now, into: &actions)
        } else if let a = d.assigned {
            forward(a, &actions) { $0.add(device, policy: policy, at: now) }
        }
        devices[device] = d
        assign(device, at: now, into: &actions)
        return finish(at: now, actions)
    }

    /// Forgets a device, ending its link or attempt. Added back, it is placed only once
    /// that has ended.
    public mutating func remove(_ device: DeviceID, at now: MonotonicTime) -> GatewayStep<PoolAction> {
        var actions: [PoolAction] = []
        if var d = devices[device] { unassign(device, &d, at: now, into: &actions, report: false) }
        devices[device] = nil
        for id in order { adapters[id]?.lastHeard[device] = nil }
        return finish(at: now, actions)
    }

    /// An on-demand device is wanted; remembered until an adapter serves it.
    public mutating func request(_ device: DeviceID, at now: MonotonicTime) -> GatewayStep<PoolAction> {
        var actions: [PoolAction] = []
        guard var d = devices[device] else { return finish(at: now, actions) }
        if let a = d.assigned {
            forward(a, &actions) { $0.request(device, at: now) }
        } else {
            d.requested = true
            devices[device] = d
            assign(device, at: now, into: &actions)
        }
        return finish(at: now, actions)
    }

    /// A poll device's reads are done, or an on-demand request finished.
    public mutating func workDone(_ device: DeviceID, at now: MonotonicTime) -> GatewayStep<PoolAction> {
        var actions: [PoolAction] = []
        if var d = devices[device] {
            d.requested = false
            devices[device] = d
            if let a = d.assigned { forward(a, &actions) { $0.workDone(device, at: now) } }
        }
        return finish(at: now, actions)
    }

    // MARK: Adapter facts

    /// `adapter` heard a configured device (unconfigured ones are not kept).
    public mutating func advertisement(from device: DeviceID, on adapter: AdapterID,
                                       at now: MonotonicTime) -> GatewayStep<PoolAction> {
        var actions: [PoolAction] = []
        guard var d = devices[device], adapters[adapter] != nil else { return finish(at: now, actions) }
        adapters[adapter]?.lastHeard[device] = now
        if let a = d.assigned {
            if a == adapter { forward(a, &actions) { $0.advertisement(from: device, at: now) } }
            // An idle device whose adapter cannot serve it moves on; one with an attempt or
            // a link there stays until that ends.
            if !heldAnywhere(device), !canServe(a, device, at: now, counting: false) {
                if let better = d.affinity.first(where: { $0 != a && canServe($0, device, at: now, counting: true) }) {
                    unassign(device, &d, at: now, into: &actions, report: false)
                    devices[device] = d
                    place(device, on: better, at: now, into: &actions)
                }
            }
        } else {
            assign(device, at: now, into: &actions)
        }
        return finish(at: now, actions)
    }

    /// LE Connection Complete with status 0 on `adapter`. A handle reported up twice ends
    /// the link that held it before, so a device waiting for that may be placed.
    public mutating func connected(on adapter: AdapterID, handle: UInt16, device: DeviceID?,
                                   at now: MonotonicTime) -> GatewayStep<PoolAction> {
        var actions: [PoolAction] = []
        forward(adapter, &actions) { $0.connected(handle: handle, device: device, at: now) }
        assignAll(at: now, into: &actions)
        return finish(at: now, actions)
    }

    /// The pending connect on `adapter` failed (after a cancel: the cancel is confirmed).
    /// A device that left `adapter` while it was connecting may now be placed.
    public mutating func connectFailed(on adapter: AdapterID, reason: HCIReason,
                                       at now: MonotonicTime) -> GatewayStep<PoolAction> {
        var actions: [PoolAction] = []
        forward(adapter, &actions) { $0.connectFailed(reason, at: now) }
        assignAll(at: now, into: &actions)
        return finish(at: now, actions)
    }

    /// Disconnection Complete on `adapter`: a slot freed, and the device of that link no
    /// longer held there, so waiting devices may be placed.
    public mutating func disconnected(on adapter: AdapterID, handle: UInt16, reason: HCIReason,
                                      at now: MonotonicTime) -> GatewayStep<PoolAction> {
        var actions: [PoolAction] = []
        forward(adapter, &actions) { $0.disconnected(handle: handle, reason: reason, at: now) }
        assignAll(at: now, into: &actions)
        return finish(at: now, actions)
    }

    /// The adapter went down (powered off, reset, unplugged): its links are gone and its
    /// devices go to the next adapter that can serve them.
    public mutating func adapterDown(_ adapter: AdapterID, at now: MonotonicTime) -> GatewayStep<PoolAction> {
        var actions: [PoolAction] = []
        guard adapters[adapter] != nil else { return finish(at: now, actions) }
        adapters[adapter]?.up = false
        // Nothing is sent to an adapter that is down: its scheduler just forgets.
        adapters[adapter]?.scheduler.clear()
        for id in devices.keys.sorted() {
            guard var d = devices[id], d.assigned == adapter else { continue }
            d.assigned = nil
            devices[id] = d
            actions.append(.assigned(id, nil))
        }
        assignAll(at: now, into: &actions)
        return finish(at: now, actions)
    }

    /// The adapter is up again (powered on, reset finished).
    public mutating func adapterUp(_ adapter: AdapterID, at now: MonotonicTime) -> GatewayStep<PoolAction> {
        var actions: [PoolAction] = []
        guard adapters[adapter] != nil else { return finish(at: now, actions) }
        adapters[adapter]?.up = true
        forward(adapter, &actions) { $0.adapterReset(at: now) }
        assignAll(at: now, into: &actions)
        return finish(at: now, actions)
    }

    /// Time passed: every scheduler ticks.
    public mutating func tick(at now: MonotonicTime) -> GatewayStep<PoolAction> {
        var actions: [PoolAction] = []
        for id in order where adapters[id]?.up == true { forward(id, &actions) { $0.tick(at: now) } }
        return finish(at: now, actions)
    }

    // MARK: Internals

    private mutating func forward(_ adapter: AdapterID, _ actions: inout [PoolAction],
                                  _ body: (inout ConnectionScheduler) -> GatewayStep<SchedulerAction>) {
        guard var a = adapters[adapter] else { return }
        let step = body(&a.scheduler)
        adapters[adapter] = a
        actions += step.actions.map { .adapter(adapter, $0) }
    }

    private func held(_ device: DeviceID, on adapter: AdapterID) -> Bool {
        adapters[adapter]?.scheduler.holds(device) ?? false
    }

    /// Some adapter (up or not; one that went down has forgotten everything) still holds
    /// an attempt or a link of `device`.
    private func heldAnywhere(_ device: DeviceID) -> Bool {
        order.contains { held(device, on: $0) }
    }

    /// Up, heard the device recently, and (when `counting`, for a device not yet there)
    /// with a slot its devices do not already claim.
    private func canServe(_ adapter: AdapterID, _ device: DeviceID, at now: MonotonicTime, counting: Bool) -> Bool {
        guard let a = adapters[adapter], a.up, let heard = a.lastHeard[device],
              now.duration(since: heard) <= recentWindow else { return false }
        let committed = a.scheduler.committedSlots(at: now) + (counting ? 1 : 0)
        return committed <= a.scheduler.configuration.maxConnections
    }

    /// Places an unassigned device on the first adapter that can serve it, once no
    /// adapter holds an attempt or a link of it any more.
    private mutating func assign(_ device: DeviceID, at now: MonotonicTime, into actions: inout [PoolAction]) {
        guard let d = devices[device], d.assigned == nil, d.policy != .never,
              let a = d.affinity.first(where: { canServe($0, device, at: now, counting: true) }),
              // Asked last: most unassigned devices are heard by no adapter, and this walks links.
              !heldAnywhere(device) else { return }
        place(device, on: a, at: now, into: &actions)
    }

    private mutating func assignAll(at now: MonotonicTime, into actions: inout [PoolAction]) {
        for id in devices.keys.sorted() { assign(id, at: now, into: &actions) }
    }

    private mutating func place(_ device: DeviceID, on adapter: AdapterID, at now: MonotonicTime,
                                into actions: inout [PoolAction]) {
        guard var d = devices[device] else { return }
        d.assigned = adapter
        let requested = d.requested
        d.requested = false
        devices[device] = d
        actions.append(.assigned(device, adapter))
        forward(adapter, &actions) { $0.add(device, policy: d.policy, requested: requested, at: now) }
    }

    private mutating func unassign(_ device: DeviceID, _ d: inout PooledDevice, at now: MonotonicTime,
                                   into actions: inout [PoolAction], report: Bool = true) {
        guard let a = d.assigned else { return }
        if adapters[a]?.scheduler.report(for: device)?.policy == .onDemand,
           case .idle = adapters[a]?.scheduler.report(for: device)?.link {
            // Carry an outstanding request to the next adapter.
            d.requested = d.requested || (adapters[a]?.scheduler.devices[device]?.requested ?? false)
        }
        forward(a, &actions) { $0.remove(device, at: now) }
        d.assigned = nil
        if report { actions.append(.assigned(device, nil)) }
    }

    private func finish(at now: MonotonicTime, _ actions: [PoolAction]) -> GatewayStep<PoolAction> {
        GatewayStep(actions: actions, nextDeadline: nextDeadline(at: now))
    }
}
