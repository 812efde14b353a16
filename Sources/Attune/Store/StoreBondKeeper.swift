import Foundation
import Synchronization
import Transport

/// The managers' ``Store`` as the backend's ``BondKeeper``: our host identity (made once
/// and kept), the bonds links are encrypted with, and the keys of each completed pairing
/// saved as the peer's ``Bond``.
final class StoreBondKeeper: BondKeeper {
    /// What the keeper tells its manager, after the store has been changed.
    enum Event: Sendable {
        /// A pairing's keys were saved in this record.
        case bonded(PeripheralRecord, PairingKeys)
        /// The stored bond did not encrypt a link to this peer.
        case bondFailed(address: BluetoothAddress, type: BluetoothAddressType, AttuneError)
    }

    let store: any Store
    private let identity = Mutex<HostIdentity?>(nil)
    private let listener = Mutex<(@Sendable (Event) -> Void)?>(nil)

    init(store: any Store) {
        self.store = store
    }

    /// Who hears of saved bonds and failed encryptions.
    func setListener(_ listener: @escaping @Sendable (Event) -> Void) {
        self.listener.withLock { $0 = listener }
    }

    func hostIdentity() -> HostIdentity {
        identity.withLock { kept in
            if let kept { return kept }
            let chosen: HostIdentity
            if let stored = store.hostIdentity {
                chosen = stored
            } else {
                chosen = HostIdentity.generate()
                // A store that cannot keep it still gives this process one identity.
                try? store.saveHostIdentity(chosen)
            }
            kept = chosen
            return chosen
        }
    }

    func bond(for address: BluetoothAddress, type: BluetoothAddressType, role: PairingKeys.Role) -> PairingKeys? {
        record(for: address, type: type)?.bond?.pairingKeys(peer: address, type: type, role: role)
    }

    /// Every record's bond, under the address it is kept at. A bond does not record the
    /// role it was made in; these say central (the kernel loads a legacy key both ways).
    func allBonds() -> [PairingKeys] {
        store.records().compactMap { record in
            record.bond?.pairingKeys(peer: record.address, type: record.addressType, role: .central)
        }
    }

    /// The record of the peer at `address`: its own, the one whose bond names it as the
    /// identity address, or the one whose IRK resolves it (a resolvable private address).
    func record(for address: BluetoothAddress, type: BluetoothAddressType) -> PeripheralRecord? {
        if let own = store.record(for: PeripheralIdentifier.make(address: address, type: type)), own.bond != nil {
            return own
        }
        let bonded = store.records().filter { $0.bond != nil }
        if let named = bonded.first(where: { $0.bond?.identityAddress == address }) { return named }
        guard ResolvablePrivateAddress.isResolvable(address, type: type) else { return nil }
        return bonded.first { record in
            record.bond?.identityResolvingKey.map { ResolvablePrivateAddress.resolves(address, with: $0) } ?? false
        }
    }

    /// Saved before this returns (one small file, on the host's thread): a link that
    /// goes down right after pairing still leaves its bond. As central the bond goes with
    /// the record of the address we connected to (its cache and subscriptions); as
    /// peripheral, with the central's identity address when it gave one.
    func paired(_ keys: PairingKeys) {
        var address = keys.peerAddress, type = keys.peerAddressType
        if let known = record(for: address, type: type) {
            // Bonded before (maybe under another resolvable address): the same record.
            (address, type) = (known.address, known.addressType)
        } else if keys.role == .peripheral, let identity = keys.identityAddress {
            address = identity
            type = keys.identityAddressType ?? .random
        }
        let bond = Bond(keys)
        do {
            try store.update(address: address, type: type) { $0.bond = bond }
        } catch {
            return
        }
        guard let saved = store.record(for: PeripheralIdentifier.make(address: address, type: type)) else { return }
        notify(.bonded(saved, keys))
    }

    func bondFailed(for address: BluetoothAddress, type: BluetoothAddressType, _ error: AttuneError) {
        notify(.bondFailed(address: address, type: type, error))
    }

    private func notify(_ event: Event) {
        guard let listener = listener.withLock({ $0 }) else { return }
        listener(event)
    }
}
