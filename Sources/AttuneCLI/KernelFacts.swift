import Attune
import Transport

/// What the kernel says about an adapter, as a manager state with the cause that names
/// the fix: listing adapters through libbluetooth fails with the errno that tells
/// AF_BLUETOOTH is missing or the process lacks privilege.
struct KernelFacts {
    var adapters: [KernelAdapter] = []
    var cause: ManagerStateCause?

    var state: ManagerState { cause?.state ?? .poweredOn }

    init(adapter name: String) {
        do {
            adapters = try KernelAdapter.list()
        } catch let error as KernelTransportError {
            cause = ManagerStateCause(errno: error.errno, adapter: name) ?? .controllerFailed("cannot list adapters: \(error)")
            return
        } catch {
            cause = .controllerFailed("cannot list adapters: \(error)")
            return
        }
        guard let adapter = adapters.first(where: { $0.name == name }) else {
            cause = .noAdapter(name)
            return
        }
        if !adapter.supportsLowEnergy {
            cause = .controllerFailed("\(name) does not support Bluetooth Low Energy")
        } else if !adapter.isUp {
            cause = .adapterDown(name)
        }
    }
}
