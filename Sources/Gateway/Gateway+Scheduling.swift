import Attune
import BluetoothCore
import GatewayCore

extension Gateway {
    /// Carries out one scheduler step of an adapter and re-arms the timer.
    func run(adapter index: Int, _ step: GatewayStep<SchedulerAction>?) {
        guard let step, adapters.indices.contains(index) else { return }
        for action in step.actions { perform(action, on: index) }
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

    private func perform(_ action: SchedulerAction, on index: Int) {
        switch action {
        case .connect(let id):
            connect(id.name, on: index)
        case .cancelConnect(let id), .disconnect(_, .some(let id)):
            guard let peripheral = devices[id.name]?.peripheral else { return }
            let central = adapters[index].central
            Task { await central.cancelConnection(peripheral) }
        case .disconnect(_, .none):
            break
        case .resetAdapter:
            // The public API has no HCI Reset: every link and attempt is dropped and the
            // scan restarted, which is what a reset leaves behind.
            adapters[index].resets += 1
            let central = adapters[index].central
            Task { [weak self] in
                await central.cancelAllConnections()
                await self?.adapterWasReset(index)
            }
        }
    }

    func adapterWasReset(_ index: Int) {
        restartScan(index)
        run(adapter: index, adapters[index].scheduler.adapterReset(at: clock.now))
    }

    /// LE Create Connection through the central; the scheduler hears how it ended.
    private func connect(_ name: String, on index: Int) {
        guard var device = devices[name] else { return }
        let central = adapters[index].central
        let peripheral = device.peripheral ?? {
            switch device.configuration.identity {
            case .address(let address, let type): return central.peripheral(address: address, type: type)
            case .irk: return nil
            }
        }()
        guard let peripheral else {
            // Only an advertisement tells where an IRK device is; until one came, fail soon.
            run(adapter: index, adapters[index].scheduler.connectFailed(HCIReason(0x3E), at: clock.now))
            return
        }
        device.peripheral = peripheral
        device.watcher?.cancel()
        device.watcher = Task { [weak self] in
            for await event in peripheral.lifecycleEvents {
                if case .disconnected(let reason, _) = event { await self?.linkDown(name, reason) }
            }
        }
        device.work = Task { [weak self] in
            do throws(AttuneError) {
                // The scheduler's own timeout cancels a connect that hangs; this one only bounds set-up.
                try await central.connect(peripheral, timeout: .seconds(120), reconnect: .off)
                await self?.linkUp(name)
            } catch {
                await self?.connectFailed(name, error)
            }
        }
        devices[name] = device
    }

    func linkUp(_ name: String) {
        guard var device = devices[name], let peripheral = device.peripheral else { return }
        let index = device.adapter
        let handle = adapters[index].nextHandle
        adapters[index].nextHandle = handle == 0xEFF ? 1 : handle + 1
        device.handle = handle
        device.lastError = nil
        let now = clock.now
        device.work = Task { [weak self] in await self?.setUp(name, peripheral) }
        devices[name] = device
        run(adapter: index, adapters[index].scheduler.connected(handle: handle, device: device.id, at: now))
        runAvailability(availability.connected(device.id, at: now))
        publishExplain(name)
    }

    func connectFailed(_ name: String, _ error: AttuneError) {
        guard var device = devices[name] else { return }
        device.lastError = error.description
        devices[name] = device
        run(adapter: device.adapter, adapters[device.adapter].scheduler.connectFailed(Self.reason(error), at: clock.now))
        publishExplain(name)
    }

    func linkDown(_ name: String, _ reason: DisconnectReason) {
        guard var device = devices[name], let handle = device.handle else { return }
        device.handle = nil
        device.work?.cancel()
        device.characteristics = [:]
        device.lastError = "disconnected: \(reason)"
        devices[name] = device
        let now = clock.now
        run(adapter: device.adapter, adapters[device.adapter].scheduler.disconnected(handle: handle, reason: Self.reason(reason), at: now))
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

    /// The timer sleeps until the earliest deadline of every machine.
    func rearm() {
        let now = clock.now
        let deadlines = adapters.compactMap { $0.scheduler.nextDeadline(at: now) }
            + adapters.compactMap(\.health.nextDeadline) + [availability.nextDeadline, watchdog.nextDeadline].compactMap { $0 }
        guard let next = deadlines.min(), !stopped else { return }
        if let armed, armed <= next, timer != nil { return }
        armed = next
        timer?.cancel()
        let instant = clock.instant(next)
        timer = Task { [weak self] in
            try? await Task.sleep(until: instant, clock: .continuous)
            guard !Task.isCancelled else { return }
            await self?.tick()
        }
    }

    func tick() {
        timer = nil
        armed = nil
        let now = clock.now
        for index in adapters.indices {
            run(adapter: index, adapters[index].scheduler.tick(at: now))
            runHealth(index, adapters[index].health.tick(at: now))
        }
        runAvailability(availability.tick(at: now))
        // The last second's arrivals first, so a value that came is not taken for silence.
        feedWatchdog()
        runWatchdog(watchdog.tick(at: now))
        rearm()
    }
}
