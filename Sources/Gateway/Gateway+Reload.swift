import BluetoothCore
import GatewayConfig
import GatewayCore
import Foundation
import SensorDecoding

extension Gateway {
    /// SIGHUP: takes the devices of a new config. Devices that did not change keep their
    /// links and subscriptions; changed ones are dropped and scheduled afresh; removed ones
    /// are disconnected and marked offline. Changes to `mqtt` or `adapters` need a
    /// restart, and the returned changes say so (``ConfigurationChanges/mqttChanged``...).
    @discardableResult
    public func reload(_ new: GatewayConfiguration) -> ConfigurationChanges {
        let changes = new.changes(from: configuration)
        let now = clock.now
        let wall = Self.timestamp()
        for name in changes.removed + changes.changed {
            guard let device = devices.removeValue(forKey: name) else { continue }
            device.work?.cancel()
            device.watcher?.cancel()
            runPool(pool.remove(device.id, at: now))
            if device.handle == nil, let index = device.linkAdapter, adapters.indices.contains(index) {
                // Its attempt ends with the cancelled work, whose report has no runtime left to
                // reach: the scheduler hears of it here, or it would wait out its cancel timeout.
                runPool(pool.connectFailed(on: adapters[index].id, reason: .unknownConnectionIdentifier, at: now))
            }
            if let peripheral = device.peripheral, let index = device.linkAdapter, adapters.indices.contains(index) {
                // The watcher is gone with the old runtime: the slot is freed here once the link is down.
                let central = adapters[index].central, id = adapters[index].id, handle = device.handle
                Task { [weak self] in
                    await central.cancelConnection(peripheral)
                    if let handle { await self?.slotFreed(id, handle) }
                }
            }
            // A device that stays connectable keeps its lease through the change.
            let stays = new.devices.first { $0.name == name }.map { Self.policy($0) != .never } ?? false
            if !stays, var lease = leases.removeValue(forKey: name) {
                for case .clear in lease.release(at: wall).actions { publishLease(name, nil) }
            }
            availability.unregister(device.id)
            runWatchdog(watchdog.setDesired(device.id, [], at: now))
            byAddress = byAddress.filter { $0.value != name }
            if changes.removed.contains(name) { publish(topics.availability(name), "offline", retain: true) }
        }
        for device in new.devices where changes.added.contains(device.name) || changes.changed.contains(device.name) {
            add(device, at: now)
        }
        reloaded(new)
        if configuration.mqtt.discovery != nil { publishDiscovery() }
        rearm()
        return changes
    }

    /// Disconnection of a link whose device was dropped by a reload.
    func slotFreed(_ adapter: AdapterID, _ handle: UInt16) {
        runPool(pool.disconnected(on: adapter, handle: handle, reason: .localHostTerminated, at: clock.now))
    }

    /// Starts following one configured device. A connectable one gets a lease and joins
    /// the pool once this gateway owns it (at once when it already does).
    func add(_ device: DeviceConfiguration, at now: MonotonicTime) {
        var runtime = DeviceRuntime(configuration: device)
        if let format = device.advertisement {
            runtime.decoder = try? AdvertisementDecoder(format: format, bindKey: device.bindkey?.bytes)
        }
        devices[device.name] = runtime
        if case .address(let address, _) = device.identity { byAddress[address] = device.name }
        let policy = Self.policy(device)
        availability.register(runtime.id, followsLink: policy == .keep)
        if policy == .keep { runWatchdog(watchdog.setDesired(runtime.id, Self.desired(device), at: now)) }
        guard policy != .never else { return }
        if let lease = leases[device.name] {
            if lease.isOwner { runLease(device.name, LeaseStep(actions: [.acquired], nextDeadline: lease.nextDeadline)) }
        } else {
            leases[device.name] = DeviceLease(gateway: topics.clientID, configuration: leaseConfiguration,
                                              renewalPhase: Self.renewalPhase(of: device.name))
        }
    }

    /// A device's place in the lease renewal period: its name's FNV-1a hash as a fraction,
    /// the same on every start and reload, and spread evenly over many names.
    static func renewalPhase(of name: String) -> Double {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return Double(hash >> 11) / Double(1 << 53)
    }
}
