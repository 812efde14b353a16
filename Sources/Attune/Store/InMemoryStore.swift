import Foundation
import Transport
import Synchronization

/// A ``Store`` that keeps everything in memory.
public final class InMemoryStore: Store {
    private let state: Mutex<[UUID: PeripheralRecord]>

    /// A store holding `records`.
    public init(_ records: [PeripheralRecord] = []) {
        state = Mutex(Dictionary(records.map { ($0.identifier, $0) }, uniquingKeysWith: { _, new in new }))
    }

    public func records() -> [PeripheralRecord] {
        state.withLock { Array($0.values) }.sorted { $0.address < $1.address }
    }

    public func record(for identifier: UUID) -> PeripheralRecord? { state.withLock { $0[identifier] } }

    public func update(address: BluetoothAddress, type: BluetoothAddressType,
                       _ change: (inout PeripheralRecord) -> Void) throws(StoreError) {
        let id = PeripheralIdentifier.make(address: address, type: type)
        state.withLock { records in
            var record = records[id] ?? PeripheralRecord(address: address, addressType: type)
            change(&record)
            records[id] = record
        }
    }

    public func save(_ record: PeripheralRecord) throws(StoreError) {
        state.withLock { $0[record.identifier] = record }
    }

    public func removeRecord(for identifier: UUID) throws(StoreError) {
        _ = state.withLock { $0.removeValue(forKey: identifier) }
    }

    public var problems: [StoreProblem] { [] }

    private let identity = Mutex<HostIdentity?>(nil)
    public var hostIdentity: HostIdentity? { identity.withLock { $0 } }
    public func saveHostIdentity(_ identity: HostIdentity) throws(StoreError) { self.identity.withLock { $0 = identity } }
}
