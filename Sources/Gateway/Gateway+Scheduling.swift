import Attune
import BluetoothCore
import GatewayCore

extension Gateway {
    /// Carries out one step of the adapter pool and re-arms the timer.
    func runPool(_ step: GatewayStep<PoolAction>) {
        for action in step.actions {
            switch action {
            case .adapter(let id, let scheduled):
                if let index = adapterIndex(id) { perform(scheduled, on: index) }
            case .assigned(let device, let id):
                assign(device.name, to: id.flatMap(adapterIndex))
            }
        }
        rearm()
    }

    func runAvailability(_ step: GatewayStep<AvailabilityAction>) {
        for action in step.actions {
            switch action {
            case .online(let id): publish(topics.availability(id.name), "online", retain: true)
            case .offline(let id): publish(topics.availability(id.name), "offline", retain: true)
            }
        }
        rearm()
    }

    func adapterIndex(_ id: AdapterID) -> Int? { adapters.firstIndex { $0.id == id } }

    /// The pool moved a device: its next link goes through that adapter's central (a
    /// peripheral object belongs to one central, so the link takes it from there).
    private func assign(_ name: String, to index: Int?) {
        guard devices[name] != nil else { return }
        devices[name]?.adapter = index
        publishExplain(name)
    }

    private func perform(_ action: SchedulerAction, on index: Int) {
        switch action {
        case .connect(let id):
            connect(id.name, on: index)
        case .cancelConnect(let id), .disconnect(_, .some(let id)):
            // The attempt or link is on the adapter that asks; its peripheral is that central's.
            // The cancel only asks: the pool places the device elsewhere once the connect
            // task or the watcher reports how the attempt or link ended.
            guard let device = devices[id.name], let peripheral = device.peripheral,
                  device.linkAdapter == index else { return }
            let central = adapters[index].central
            Task { await central.cancelConnection(peripheral) }
        case .disconnect(_, .none):
            break
        case .resetAdapter:
            resetAdapter(index)
        }
    }

    /// HCI Reset through the public API (a power cycle on the kernel transport): the
    /// reset itself ends every link and pending connect, which the lifecycle watchers and
    /// connect tasks report as usual; then the scan starts again.
    func resetAdapter(_ index: Int) {
        adapters[index].resets += 1
        let central = adapters[index].central
        Task { [weak self] in
            do throws(AttuneError) {
                try await central.resetAdapter()
                await self?.adapterWasReset(index, error: nil)
            } catch {
                await self?.adapterWasReset(index, error: error)
            }
        }
    }

    /// After a reset: a failure (a controller that ignored HCI Reset, or one not powered)
    /// is kept for the adapters topic; scan health tries again after its next silence.
    func adapterWasReset(_ index: Int, error: AttuneError?) {
        adapters[index].lastResetError = error?.description
        restartScan(index)
        runPool(pool.adapterUp(adapters[index].id, at: clock.now))
    }

    /// Follows an adapter's power: off takes it out of the pool (its devices go to the
    /// next adapter that hears them), on brings it back.
    func watchPower(_ index: Int) {
        let central = adapters[index].central
        adapters[index].power = Task { [weak self] in
            for await state in central.stateUpdates {
                await self?.powerChanged(index, on: state == .poweredOn)
            }
        }
    }

    private func powerChanged(_ index: Int, on: Bool) {
        guard adapters.indices.contains(index), adapters[index].up != on, !stopped else { return }
        adapters[index].up = on
        let id = adapters[index].id
        if !on {
            // Its links are gone with it: each one ends now, whatever the central reports later.
            for name in devices.keys.sorted() where devices[name]?.linkAdapter == index {
                linkGone(name)
            }
        }
        runPool(on ? pool.adapterUp(id, at: clock.now) : pool.adapterDown(id, at: clock.now))
        // The scan ended with the power; it waits for poweredOn again.
        if on { restartScan(index) }
        publishAdapters()
    }

    /// A link or attempt on an adapter that went down: the pool has forgotten its slots.
    private func linkGone(_ name: String) {
        guard var device = devices[name] else { return }
        device.work?.cancel()
        device.watcher?.cancel()
        let wasUp = device.handle != nil
        device.handle = nil
        device.linkAdapter = nil
        device.characteristics = [:]
        device.consumers = []
        device.lastError = "adapter powered off"
        devices[name] = device
        guard wasUp else { return }
        let now = clock.now
        runAvailability(availability.disconnected(device.id, at: now))
        runWatchdog(watchdog.disconnected(device.id, at: now))
    }

    /// LE Create Connection through the central; the scheduler hears how it ended.
    private func connect(_ name: String, on index: Int) {
        guard var device = devices[name] else { return }
        let central = adapters[index].central
        let peripheral: Peripheral? = {
            // Where this adapter last heard it is where it is (an IRK device's current address).
            if let heard = device.heard[index] { return central.peripheral(for: heard.advertisement) }
            switch device.configuration.identity {
            case .address(let address, let type): return central.peripheral(address: address, type: type)
            case .irk: return nil
            }
        }()
        guard let peripheral else {
            // Only an advertisement tells where an IRK device is; until one came, fail soon.
            runPool(pool.connectFailed(on: adapters[index].id, reason: HCIReason(0x3E), at: clock.now))
            return
        }
        device.peripheral = peripheral
        device.linkAdapter = index
        // The pool connects a device only once its last attempt or link has ended, so the
        // previous task has reported; one still waiting (its adapter went down under it) is
        // superseded, and its late answer must not pass for this attempt's.
        device.work?.cancel()
        device.watcher?.cancel()
        device.watcher = Task { [weak self] in
            for await event in peripheral.lifecycleEvents {
                if case .disconnected(let reason, _) = event { await self?.linkDown(name, reason, on: index) }
            }
        }
        device.work = Task { [weak self] in
            do throws(AttuneError) {
                // The scheduler's own timeout cancels a connect that hangs; this one only bounds set-up.
                try await central.connect(peripheral, timeout: .seconds(120), reconnect: .off)
                if Task.isCancelled {
                    await self?.supersededLinkUp(name, peripheral, on: index)
                } else {
                    await self?.linkUp(name, peripheral, on: index)
                }
            } catch {
                // A superseded attempt's failure is not the current one's (on the same adapter
                // it would end that adapter's pending connect early).
                if !Task.isCancelled { await self?.connectFailed(name, error, on: index) }
            }
        }
        devices[name] = device
    }

    /// A connect through adapter `index` came up. When the device no longer wants that
    /// link (its adapter went down meanwhile, or a reload replaced it), it ends here:
    /// ignored, that link would hold a slot of the controller for good. A device the pool
    /// moved away is not placed elsewhere before this link's end is reported.
    func linkUp(_ name: String, _ peripheral: Peripheral, on index: Int) {
        guard var device = devices[name], device.linkAdapter == index, device.peripheral === peripheral else {
            let central = adapters[index].central
            Task { await central.cancelConnection(peripheral) }
            return
        }
        let handle = adapters[index].nextHandle
        adapters[index].nextHandle = handle == 0xEFF ? 1 : handle + 1
        device.handle = handle
        device.lastError = nil
        // This link's streams are new: its work starts their consumers.
        device.consumers = []
        let now = clock.now
        device.work = Task { [weak self] in await self?.setUp(name, peripheral) }
        devices[name] = device
        runPool(pool.connected(on: adapters[index].id, handle: handle, device: device.id, at: now))
        runAvailability(availability.connected(device.id, at: now))
        // Connected: this gateway can serve it whatever it hears.
        leaseCanServe(name)
        publishExplain(name)
    }

    /// A superseded connect came up. When the current attempt is on the same adapter with
    /// the same peripheral object, the link is that attempt's (one peripheral has one
    /// link), and its own task reports it; otherwise the link is nobody's and ends here.
    func supersededLinkUp(_ name: String, _ peripheral: Peripheral, on index: Int) {
        if let device = devices[name], device.linkAdapter == index, device.peripheral === peripheral { return }
        let central = adapters[index].central
        Task { await central.cancelConnection(peripheral) }
    }

    func connectFailed(_ name: String, _ error: AttuneError, on index: Int) {
        guard var device = devices[name], device.linkAdapter == index else { return }
        device.lastError = error.description
        device.linkAdapter = nil
        devices[name] = device
        runPool(pool.connectFailed(on: adapters[index].id, reason: Self.reason(error), at: clock.now))
        publishExplain(name)
    }

    func linkDown(_ name: String, _ reason: DisconnectReason, on index: Int) {
        guard var device = devices[name], device.linkAdapter == index, let handle = device.handle else { return }
        device.handle = nil
        device.linkAdapter = nil
        device.work?.cancel()
        device.characteristics = [:]
        device.consumers = []
        device.lastError = "disconnected: \(reason)"
        devices[name] = device
        let now = clock.now
        runPool(pool.disconnected(on: adapters[index].id, handle: handle, reason: Self.reason(reason), at: now))
        runAvailability(availability.disconnected(device.id, at: now))
        runWatchdog(watchdog.disconnected(device.id, at: now))
        publishExplain(name)
    }

    /// The HCI reason the scheduler's backoff is chosen by.
    static func reason(_ error: AttuneError) -> HCIReason {
        switch error {
        case .connectionFailed(let reason), .peripheralDisconnected(let reason): return Self.reason(reason)
        case .connectionTimeout: return HCIReason(0x3E)
        case .cancelled: return .unknownConnectionIdentifier
        default: return HCIReason(0x1F)
        }
    }

    static func reason(_ reason: DisconnectReason) -> HCIReason {
        switch reason {
        case .hci(let status): HCIReason(status.rawValue)
        case .connectionTimeout: HCIReason(0x3E)
        case .cancelled: HCIReason(0x16)
        case .attBearerClosed, .transport: HCIReason(0x1F)
        }
    }

    // MARK: Time

    /// The timer sleeps until the earliest deadline of every machine (leases count in
    /// wall-clock seconds, turned into the monotonic time they fall at).
    ///
    /// Every step of every machine asks for a re-arm; the deadlines are gathered once per
    /// turn of the actor, after the burst, since each machine's `nextDeadline` walks its
    /// devices (a thousand devices' leases, subscriptions and availability).
    func rearm() {
        guard !rearmQueued, !stopped else { return }
        rearmQueued = true
        Task { [weak self] in await self?.rearmNow() }
    }

    /// Deadlines are rounded up to a 50 ms grid: a thousand leases renewing at their own
    /// instants then wake the gateway at most 20 times a second, each tick serving all
    /// that fell due, instead of once per lease. Every deadline here is a second or more
    /// (connect timeouts, backoff from 0.25 s, lease renewals, silences), so 50 ms late is
    /// within what each allows.
    static let tickGrid: UInt64 = 50_000_000

    private func rearmNow() {
        rearmQueued = false
        let now = clock.now
        var deadlines = [pool.nextDeadline(at: now)] + adapters.map(\.health.nextDeadline)
            + [availability.nextDeadline, watchdog.nextDeadline]
        if let lease = leases.values.compactMap(\.nextDeadline).min() {
            let wait = lease - Self.timestamp()
            // A deadline already past is due now; one absurdly far off (a hostile record) waits a day.
            let seconds = wait.isFinite ? min(max(0, wait), 86_400) : 0
            deadlines.append(now + .nanoseconds(Int64(seconds * 1e9)))
        }
        guard let earliest = deadlines.compactMap({ $0 }).min(), !stopped else { return }
        let (grid, past) = earliest.nanoseconds.quotientAndRemainder(dividingBy: Self.tickGrid)
        let next = MonotonicTime(nanoseconds: past == 0 ? earliest.nanoseconds : (grid + 1) &* Self.tickGrid)
        let instant = clock.instant(next)
        timer.arm(next) { _ in
            Task { [weak self] in
                try? await Task.sleep(until: instant, clock: .continuous)
                guard !Task.isCancelled else { return }
                await self?.tick()
            }
        }?.cancel()
    }

    func tick() {
        timer.fired()
        let now = clock.now
        runPool(pool.tick(at: now))
        for index in adapters.indices { runHealth(index, adapters[index].health.tick(at: now)) }
        runAvailability(availability.tick(at: now))
        tickLeases()
        // The last second's arrivals first, so a value that came is not taken for silence.
        feedWatchdog()
        runWatchdog(watchdog.tick(at: now))
        rearm()
    }
}
