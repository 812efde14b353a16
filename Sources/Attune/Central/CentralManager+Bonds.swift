import Foundation
import Transport

extension CentralManager {
    /// The peers this host has bonded with: pairing keys kept in the ``store``, which
    /// encrypt the next links without pairing again. Like the system's paired-device
    /// list that Core Bluetooth keeps out of sight; the records' bonds never print a key.
    public var bonds: [PeripheralRecord] { store.records().filter { $0.bond != nil } }

    /// Forgets the bond with a peripheral, like "Forget This Device": its keys leave the
    /// store (the record keeps its GATT cache), and a transport whose Security Manager
    /// keeps its own copy forgets them too (the kernel's, through mgmt Unpair Device;
    /// beside bluetoothd, bluetoothd keeps its copy). The next link is unencrypted until
    /// it pairs again. The peer still holds its half and may refuse the new pairing until
    /// it forgets us too.
    /// - Returns: what was removed beyond the store, or nil when there was no bond.
    /// - Throws: ``StoreError`` when the store cannot be written.
    @discardableResult
    public func removeBond(for peripheral: Peripheral) async throws(StoreError) -> BondRemoval? {
        try await removeBond(identifier: peripheral.identifier)
    }

    /// Forgets the bond of the record with this identifier; see ``removeBond(for:)``.
    @discardableResult
    public func removeBond(identifier: UUID) async throws(StoreError) -> BondRemoval? {
        guard let record = store.record(for: identifier), let bond = record.bond else { return nil }
        if identifier == PeripheralIdentifier.make(address: record.address, type: record.addressType) {
            // One step, so a cache saved meanwhile by a link is not undone.
            try store.update(address: record.address, type: record.addressType) { $0.bond = nil }
        } else {
            // A record kept under another identifier than its address makes: update(address:)
            // would clear a different record and leave this bond in place.
            var cleared = record
            cleared.bond = nil
            try store.save(cleared)
        }
        guard store.record(for: identifier)?.bond == nil else {
            throw StoreError(operation: "remove bond", path: identifier.uuidString, detail: "the store still holds the bond")
        }
        // The kernel holds the keys under the identity the peer distributed, as they were
        // loaded into it (KernelStoredKeys): an identity without a type is random.
        let address = bond.identityAddress ?? record.address
        let type = bond.identityAddress == nil ? record.addressType : (bond.identityAddressType ?? .random)
        return await backend.forgetBond(with: address, type: type)
    }

    /// The bonded record an advertiser's address belongs to: its own, or the one whose
    /// stored IRK resolves it (a resolvable private address).
    func bondedRecord(for address: BluetoothAddress, type: BluetoothAddressType) -> PeripheralRecord? {
        bondKeeper.record(for: address, type: type)
    }

    /// The keeper saved a bond or saw one fail: the peripheral it belongs to says so.
    func bondEvent(_ event: StoreBondKeeper.Event) {
        switch event {
        case .bonded(let record, let keys):
            guard keys.role == .central, let bond = record.bond else { return }
            let peripheral = known.withLock { $0[record.identifier] }
            peripheral?.lifecycleBroadcast.yield(.bonded(bond))
        case .bondFailed(let address, let type, let error):
            let id = bondedRecord(for: address, type: type)?.identifier ?? PeripheralIdentifier.make(address: address, type: type)
            let peripheral = known.withLock { $0[id] }
            peripheral?.lifecycleBroadcast.yield(.bondFailed(error))
        }
    }
}
