import BluetoothCore
import GatewayConfig
import GatewayCore
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
        for name in changes.removed + changes.changed {
            guard let device = devices.removeValue(forKey: name) else { continue }
            device.work?.cancel()
            device.watcher?.cancel()
            if adapters.indices.contains(device.adapter) {
                run(adapter: device.adapter, adapters[device.adapter].scheduler.remove(device.id, at: now))
                if let peripheral = device.peripheral {
                    let central = adapters[device.adapter].central
                    Task { await central.cancelConnection(peripheral) }
                }
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

    /// Starts scheduling one configured device.
    func add(_ device: DeviceConfiguration, at now: MonotonicTime) {
        var runtime = DeviceRuntime(configuration: device, adapter: 0)
        if let format = device.advertisement {
            runtime.decoder = try? AdvertisementDecoder(format: format, bindKey: device.bindkey?.bytes)
        }
        devices[device.name] = runtime
        if case .address(let address, _) = device.identity { byAddress[address] = device.name }
        let policy = Self.policy(device)
        availability.register(runtime.id, followsLink: policy == .keep)
        if policy == .keep { runWatchdog(watchdog.setDesired(runtime.id, Self.desired(device), at: now)) }
        guard policy != .never, adapters.indices.contains(runtime.adapter) else { return }
        run(adapter: runtime.adapter, adapters[runtime.adapter].scheduler.add(runtime.id, policy: policy, at: now))
    }
}
