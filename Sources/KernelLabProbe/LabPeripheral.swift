import Transport

/// hci1 listening for ATT and advertising connectably, the peer side every GATT
/// scenario of the probe starts from (the kernel's LE connect waits for an
/// advertisement before it sends Create Connection).
struct LabPeripheral {
    /// hci0, the central's adapter.
    let central: KernelAdapter
    /// hci1.
    let peripheral: KernelAdapter
    let listener: L2CAPATTListener
    let advertiser: KernelLEAdvertiser

    /// Finds hci0 and hci1, listens on hci1 and starts advertising; on failure logs it
    /// under `scenario` and returns nil.
    static func start(log: ProbeLog, scenario: String) async -> LabPeripheral? {
        guard let adapters = try? KernelAdapter.list(),
              let central = adapters.first(where: { $0.index == 0 }), let peripheral = adapters.first(where: { $0.index == 1 }) else {
            log.fail("\(scenario): adapters", "need hci0 and hci1")
            return nil
        }
        do {
            let listener = try L2CAPATTListener(address: peripheral.address)
            let advertiser = try KernelLEAdvertiser(adapterIndex: peripheral.index)
            try await advertiser.start(data: [0x02, 0x01, 0x06])
            return LabPeripheral(central: central, peripheral: peripheral, listener: listener, advertiser: advertiser)
        } catch {
            log.fail("\(scenario): advertise", "\(error)")
            return nil
        }
    }

    func close() {
        listener.close()
        advertiser.close()
    }
}
