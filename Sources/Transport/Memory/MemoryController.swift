import HCI

/// A controller on a ``MemoryRadio``, with an address of its own.
struct MemoryController: ControllerBackend {
    let radio: MemoryRadio
    let address: BluetoothAddress
    var addressType: BluetoothAddressType { .random }

    init(radio: MemoryRadio) {
        self.radio = radio
        address = radio.allocateAddress()
    }

    var status: ManagerStatus { radio.status(of: address) }
    func statusUpdates() -> AsyncStream<ManagerStatus> { radio.statusUpdates(of: address) }

    func startScanning(_ report: @escaping @Sendable (Advertisement) -> Void) throws(AttuneError) -> Int {
        try radio.startScanning(from: address, report)
    }

    func resetController() async throws(AttuneError) { try radio.resetController(address) }

    func stopScanning(_ token: Int) { radio.stopScanning(token) }

    func connect(to address: BluetoothAddress, type: BluetoothAddressType) async throws(AttuneError) -> any ATTLink {
        try await radio.connect(from: (self.address, addressType), to: address)
    }

    func startAdvertising(_ parameters: AdvertisingParameters,
                          accept: @escaping @Sendable (any ATTLink) -> Void) throws(AttuneError) {
        try radio.startAdvertising(from: address, parameters, accept: accept)
    }

    func stopAdvertising() { radio.stopAdvertising(from: address) }

    func setAdvertisingEnabled(_ enabled: Bool) { radio.setAdvertisingEnabled(enabled, from: address) }

    /// The memory radio stops at once.
    func settle() async {}
}
