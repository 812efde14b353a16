import Transport
import Foundation

/// Where Attune remembers known peripherals: their GATT cache and hash, subscriptions
/// and bonds. ``FileStore`` is the default; ``InMemoryStore`` serves tests and processes
/// that want nothing on disk.
public protocol Store: Sendable {
    /// Every remembered peripheral.
    func records() -> [PeripheralRecord]
    func record(for identifier: UUID) -> PeripheralRecord?
    /// Adds or replaces the record with the same identifier, durably.
    func save(_ record: PeripheralRecord) throws(StoreError)
    func removeRecord(for identifier: UUID) throws(StoreError)
    /// What was wrong with the stored state when it was loaded (corrupt files moved
    /// aside); empty when all was well.
    var problems: [StoreProblem] { get }
    /// Our host's identity (static random address and IRK), so every process shows peers
    /// the same device; nil until one is saved. A store that does not keep it (the
    /// default) gives the host a new identity per process, and peers lose their bonds.
    var hostIdentity: HostIdentity? { get }
    /// Keeps our host's identity, durably (``FileStore``: mode 0600).
    func saveHostIdentity(_ identity: HostIdentity) throws(StoreError)
    /// Changes one record in place (creating it from `address` when missing) and saves it.
    /// The stores here do it as one step, so writers of different fields (a bond from
    /// the host's thread, a cache from the peripheral) never undo each other.
    func update(address: BluetoothAddress, type: BluetoothAddressType,
                _ change: (inout PeripheralRecord) -> Void) throws(StoreError)
}

extension Store {
    public var hostIdentity: HostIdentity? { nil }
    public func saveHostIdentity(_ identity: HostIdentity) throws(StoreError) {}
}

extension Store {
    /// Changes one record in place (creating it from `address` when missing) and saves it:
    /// a read, then a save (not one step, for stores that do not say otherwise).
    public func update(address: BluetoothAddress, type: BluetoothAddressType,
                       _ change: (inout PeripheralRecord) -> Void) throws(StoreError) {
        let id = PeripheralIdentifier.make(address: address, type: type)
        var record = record(for: id) ?? PeripheralRecord(address: address, addressType: type)
        change(&record)
        try save(record)
    }
}
