/// The backend for a transport whose I/O edge is not yet connected to the managers: it
/// reports ``ManagerState/unsupported`` with a cause that says so, and refuses work.
struct UnwiredController: ControllerBackend {
    let transport: String
    let address = BluetoothAddress(rawValue: 0)
    var addressType: BluetoothAddressType { .public }

    var status: ManagerStatus {
        ManagerStatus(cause: .transportUnreachable("the \(transport) transport is not wired into the managers in this build"))
    }

    func statusUpdates() -> AsyncStream<ManagerStatus> { AsyncStream { $0.finish() } }

    func startScanning(_ report: @escaping @Sendable (Advertisement) -> Void) throws(AttuneError) -> Int {
        throw .unavailable(status.cause!)
    }

    func stopScanning(_ token: Int) {}

    func connect(to address: BluetoothAddress, type: BluetoothAddressType) async throws(AttuneError) -> any ATTLink {
        throw .unavailable(status.cause!)
    }

    func startAdvertising(_ parameters: AdvertisingParameters,
                          accept: @escaping @Sendable (any ATTLink) -> Void) throws(AttuneError) {
        throw .unavailable(status.cause!)
    }

    func stopAdvertising() {}
}
