import Attune
import BluetoothCore
import GatewayConfig
import GatewayCore

extension Gateway {
    /// A keep device's notify and indicate entries, as the watchdog's desired set.
    static func desired(_ device: DeviceConfiguration) -> [DesiredSubscription] {
        device.gatt.filter { $0.subscription != .none }
            .map { DesiredSubscription(characteristic: $0.characteristic, indicate: $0.subscription == .indicate) }
    }

    func runWatchdog(_ step: GatewayStep<WatchdogAction>) {
        for action in step.actions {
            switch action {
            case .writeCCCDs(let id, let subscriptions):
                guard let peripheral = devices[id.name]?.peripheral, devices[id.name]?.handle != nil else { continue }
                Task { [weak self] in await self?.subscribe(id.name, subscriptions, peripheral) }
            case .resubscribe(let id, let subscription):
                guard let peripheral = devices[id.name]?.peripheral, devices[id.name]?.handle != nil else { continue }
                Task { [weak self] in await self?.resubscribe(id.name, subscription, peripheral) }
            }
        }
        rearm()
    }

    /// Hands the arrival times the notification tasks kept to the watchdog.
    /// One batch, one deadline walk and one re-arm: per value, that walk over every
    /// device made a thousand devices' values cost the actor a million steps a second.
    func feedWatchdog() {
        var batch: [(device: DeviceID, subscription: DesiredSubscription, times: [MonotonicTime])] = []
        var learning: [(String, DesiredSubscription)] = []
        for (key, times) in arrivals.take() {
            guard let binding = devices[key.device]?.configuration.gatt.first(where: { $0.topic == key.topic }) else { continue }
            let subscription = DesiredSubscription(characteristic: binding.characteristic, indicate: binding.subscription == .indicate)
            if watchdog.learnedInterval(of: DeviceID(key.device), subscription) == nil { learning.append((key.device, subscription)) }
            batch.append((DeviceID(key.device), subscription, times))
        }
        guard !batch.isEmpty else { return }
        runWatchdog(watchdog.notifications(batch))
        // `--explain` shows the interval once it is learned.
        for (name, subscription) in learning where watchdog.learnedInterval(of: DeviceID(name), subscription) != nil {
            publishExplain(name)
        }
    }

    /// Nothing came for 5 × the learned interval: the CCCD is read, and written again so
    /// a peer that forgot it (or lost our write) sends again. The stream stays as it is.
    func resubscribe(_ name: String, _ subscription: DesiredSubscription, _ peripheral: Peripheral) async {
        guard let binding = devices[name]?.configuration.gatt.first(where: { $0.characteristic == subscription.characteristic }),
              let characteristic = devices[name]?.characteristics[binding.topic] else { return }
        do throws(AttuneError) {
            let descriptors = try await peripheral.discoverDescriptors(for: characteristic)
            guard let cccd = descriptors.first(where: { $0.uuid == BluetoothUUID(0x2902) }) else {
                noteError(name, "resubscribe \(binding.topic): no CCCD")
                return
            }
            let was = try await peripheral.readValue(for: cccd)
            try await peripheral.writeValue(subscription.indicate ? [0x02, 0x00] : [0x01, 0x00], for: cccd)
            devices[name]?.resubscribes += 1
            devices[name]?.lastError = "\(binding.topic) was silent; its CCCD read \(hexString(was, empty: "")) and was written again"
            publishExplain(name)
        } catch {
            noteError(name, "resubscribe \(binding.topic): \(error)")
        }
    }
}
