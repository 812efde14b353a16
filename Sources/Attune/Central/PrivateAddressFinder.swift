import Synchronization
import Transport

/// Finds where a bonded peer that uses resolvable private addresses advertises now: it
/// scans until an advertisement's address resolves with the peer's IRK (`ah`), as the
/// kernel's background scan does before it auto-connects. A peer whose address changed
/// since it was last seen can be reached no other way without the controller's
/// resolving list. Ends with the task (the connect timeout cancels it).
enum PrivateAddressFinder {
    /// The first address that resolves with `irk` (or is the identity itself).
    static func find(irk: [UInt8], identity: BluetoothAddress?,
                     on backend: any ControllerBackend) async throws(AttuneError) -> (BluetoothAddress, BluetoothAddressType) {
        let search = Search()
        let token: Int
        do {
            token = try backend.startScanning { advertisement in
                let type = advertisement.addressType ?? .random
                let matches = advertisement.address == identity
                    || (ResolvablePrivateAddress.isResolvable(advertisement.address, type: type)
                        && ResolvablePrivateAddress.resolves(advertisement.address, with: irk))
                if matches { search.finish(.success((advertisement.address, type))) }
            }
        }
        defer { backend.stopScanning(token) }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Result<(BluetoothAddress, BluetoothAddressType), AttuneError>, Never>) in
                search.wait(waiter)
            }
        } onCancel: {
            search.finish(.failure(.cancelled))
        }
        return try result.get()
    }

    /// One search's outcome, for whichever comes first: the scan, or cancellation.
    private final class Search: Sendable {
        typealias Outcome = Result<(BluetoothAddress, BluetoothAddressType), AttuneError>
        private let state = Mutex<(waiter: CheckedContinuation<Outcome, Never>?, outcome: Outcome?)>((nil, nil))

        func wait(_ waiter: CheckedContinuation<Outcome, Never>) {
            let ready = state.withLock { s -> Outcome? in
                if let outcome = s.outcome { return outcome }
                s.waiter = waiter
                return nil
            }
            if let ready { waiter.resume(returning: ready) }
        }

        func finish(_ outcome: Outcome) {
            let waiter = state.withLock { s -> CheckedContinuation<Outcome, Never>? in
                guard s.outcome == nil else { return nil }
                s.outcome = outcome
                defer { s.waiter = nil }
                return s.waiter
            }
            waiter?.resume(returning: outcome)
        }
    }
}
