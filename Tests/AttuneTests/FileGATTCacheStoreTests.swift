import ATT
import Attune
import Foundation
import GATT
import Testing

/// The file-backed GATT cache store (moved here from GATTTests with the store itself:
/// GATT keeps no file I/O).
@Suite("File GATT cache store")
struct FileGATTCacheStoreTests {
    static let hash = Array(UInt8(1)...16)

    /// GATT service with Service Changed (value 0x0003, CCCD 0x0004) and Database Hash
    /// (value 0x0006); a Battery service at 0x0010.
    static let cached = DiscoveredDatabase(services: [
        DiscoveredService(uuid: 0x1801, handleRange: AttributeHandleRange(start: 1, end: 6), characteristics: [
            DiscoveredCharacteristic(declarationHandle: 2, properties: [.indicate], valueHandle: 3, uuid: 0x2A05, endHandle: 4,
                                     descriptors: [DiscoveredDescriptor(handle: 4, uuid: 0x2902)]),
            DiscoveredCharacteristic(declarationHandle: 5, properties: [.read], valueHandle: 6, uuid: 0x2B2A, endHandle: 6),
        ]),
        DiscoveredService(uuid: 0x180F, handleRange: AttributeHandleRange(start: 0x10, end: 0x12), characteristics: [
            DiscoveredCharacteristic(declarationHandle: 0x11, properties: [.read], valueHandle: 0x12, uuid: 0x2A19, endHandle: 0x12),
        ]),
    ], databaseHash: hash)

    @Test func fileStoreRoundTrips() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("attune-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = FileGATTCacheStore(directory: dir)
        let peer = PeerIdentity("C0:11:22:33:44:55/random")
        #expect(try store.database(for: peer) == nil)
        var db = Self.cached
        db.services[1].includes = [DiscoveredInclude(handle: 0x11, serviceRange: AttributeHandleRange(start: 0x20, end: 0x22),
                                                     uuid: BluetoothUUID("12345678-1234-5678-1234-56789abcdef0")!)]
        db.services[0].characteristics[0].extendedProperties = 1
        db.serverSupportedFeatures = [1]
        try store.store(db, for: peer)
        #expect(try store.database(for: peer) == db)
        try store.removeDatabase(for: peer)
        #expect(try store.database(for: peer) == nil)
    }
}
