import Foundation
import Testing
@testable import Attune

@Suite("Store")
struct StoreTests {
    static func temporaryDirectory() -> String {
        let dir = NSTemporaryDirectory() + "attune-store-\(UUID().uuidString)"
        return dir
    }

    static let sensor = BluetoothAddress("C0:DE:C0:DE:00:02")!
    static let other = BluetoothAddress("00:AA:01:01:00:01")!

    static func fullRecord() -> PeripheralRecord {
        PeripheralRecord(
            address: sensor, addressType: .random, name: "RawH4Periph",
            cache: GATTCache(services: Sample.services(), databaseHash: Sample.hash),
            subscriptions: [Sample.heartRateSubscription, Sample.batterySubscription],
            bond: Bond(longTermKey: Array(repeating: 0x5A, count: 16), identityResolvingKey: Array(0..<16),
                       isAuthenticated: true),
            autoConnect: true)
    }

    @Test func recordsSurviveAReopen() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try FileStore(directory: dir)
        let record = Self.fullRecord()
        try store.save(record)
        try store.save(PeripheralRecord(address: Self.other, addressType: .public))

        let reopened = try FileStore(directory: dir)
        #expect(reopened.problems.isEmpty)
        #expect(reopened.records().count == 2)
        #expect(reopened.record(for: record.identifier) == record)
        // UUID widths survive the trip, so handles and hashes compare exactly.
        #expect(reopened.record(for: record.identifier)?.cache?.services.first?.uuid.width == .bits16)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test func updateAndRemove() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try FileStore(directory: dir)
        try store.update(address: Self.sensor, type: .random) { $0.name = "first" }
        try store.update(address: Self.sensor, type: .random) { $0.subscriptions = [Sample.heartRateSubscription] }
        let id = PeripheralIdentifier.make(address: Self.sensor, type: .random)
        #expect(try FileStore(directory: dir).record(for: id)?.name == "first")
        #expect(try FileStore(directory: dir).record(for: id)?.subscriptions == [Sample.heartRateSubscription])
        try store.removeRecord(for: id)
        #expect(try FileStore(directory: dir).records().isEmpty)
        try store.removeRecord(for: id)   // removing twice is fine
    }

    @Test(arguments: [
        "{\"identifier\": ",                                   // truncated JSON
        "\u{0}\u{1}garbage\u{FF}",                             // not JSON at all
        "{\"identifier\":\"not-a-uuid\",\"address\":\"x\"}",   // wrong field types
        "[]",                                                  // JSON, but not a record
    ])
    func corruptFileIsReportedAndMovedAsideWhileTheRestStaysUsable(_ garbage: String) throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try FileStore(directory: dir)
        let good = Self.fullRecord()
        let bad = PeripheralRecord(address: Self.other, addressType: .public)
        try store.save(good)
        try store.save(bad)
        let badPath = dir + "/" + bad.identifier.uuidString + ".json"
        try Data(garbage.utf8).write(to: URL(fileURLWithPath: badPath))

        let reopened = try FileStore(directory: dir)
        #expect(reopened.problems.count == 1)
        let problem = try #require(reopened.problems.first)
        #expect(problem.path == badPath)
        let movedTo = try #require(problem.movedTo)
        #expect(movedTo.hasPrefix(badPath + ".corrupt-"))
        #expect(FileManager.default.contents(atPath: movedTo) == Data(garbage.utf8), "nothing is lost")
        #expect(!FileManager.default.fileExists(atPath: badPath))
        #expect(problem.description.contains("corrupt store file"))
        // The other peripheral restores, and the store still takes writes.
        #expect(reopened.record(for: good.identifier) == good)
        #expect(reopened.record(for: bad.identifier) == nil)
        try reopened.save(bad)
        let third = try FileStore(directory: dir)
        #expect(third.problems.isEmpty, "the moved-aside file is not read again")
        #expect(third.records().count == 2)
    }

    @Test func interruptedWriteLeavesThePreviousRecord() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try FileStore(directory: dir)
        let record = Self.fullRecord()
        try store.save(record)
        // A crash between writing the temporary file and renaming it.
        let temporary = dir + "/." + record.identifier.uuidString + ".json.tmp"
        try Data("{\"half\":".utf8).write(to: URL(fileURLWithPath: temporary))
        let reopened = try FileStore(directory: dir)
        #expect(reopened.problems.isEmpty)
        #expect(reopened.record(for: record.identifier) == record)
        #expect(!FileManager.default.fileExists(atPath: temporary))
    }

    @Test func misnamedRecordIsReported() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try FileStore(directory: dir)
        let record = Self.fullRecord()
        try store.save(record)
        let wrong = dir + "/" + UUID().uuidString + ".json"
        try FileManager.default.copyItem(atPath: dir + "/" + record.identifier.uuidString + ".json", toPath: wrong)
        let reopened = try FileStore(directory: dir)
        #expect(reopened.problems.map(\.path) == [wrong])
        #expect(reopened.records() == [record])
    }

    @Test func unusableDirectoryIsATypedError() throws {
        let file = Self.temporaryDirectory()
        try Data().write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(throws: StoreError.self) { try FileStore(directory: file + "/sub") }
    }

    @Test func inMemoryStoreBehavesLikeTheFileStore() throws {
        let store = InMemoryStore()
        let record = Self.fullRecord()
        try store.save(record)
        #expect(store.record(for: record.identifier) == record)
        try store.update(address: Self.sensor, type: .random) { $0.autoConnect = false }
        #expect(store.records().first?.autoConnect == false)
        try store.removeRecord(for: record.identifier)
        #expect(store.records().isEmpty)
    }

    @Test func identifiersAreStableAndCarryTheAddress() {
        let id = PeripheralIdentifier.make(address: Self.sensor, type: .random)
        #expect(id == PeripheralIdentifier.make(address: Self.sensor, type: .random))
        #expect(id != PeripheralIdentifier.make(address: Self.sensor, type: .public))
        let back = PeripheralIdentifier.address(of: id)
        #expect(back?.0 == Self.sensor)
        #expect(back?.1 == .random)
        #expect(PeripheralIdentifier.address(of: UUID()) == nil)
    }
}

@Suite("Restore through the central manager")
struct CentralRestoreTests {
    @Test func corruptFileIsSetAsideAndTheRestIsRestored() throws {
        let dir = StoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let good = StoreTests.fullRecord()
        try FileStore(directory: dir).save(good)
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: dir + "/" + UUID().uuidString + ".json"))

        let central = CentralManager(transport: .memory(MemoryRadio()), store: try FileStore(directory: dir))
        #expect(central.store.problems.count == 1)
        let restored = central.restoredPeripherals
        #expect(restored.map(\.identifier) == [good.identifier])
        #expect(central.retrievePeripherals(identifiers: [good.identifier]).first === restored.first)
    }

    @Test func restoredPeripheralCarriesItsCacheAndSubscriptions() async throws {
        let good = StoreTests.fullRecord()
        let central = CentralManager(transport: .memory(MemoryRadio()), store: InMemoryStore([good]))
        let p = try #require(central.retrievePeripherals(identifiers: [good.identifier]).first)
        #expect(await p.subscriptions == good.subscriptions)
        #expect(await p.name == "RawH4Periph")
        #expect(await p.state == .disconnected)
        // An identifier the store does not know still resolves to its address.
        let stranger = PeripheralIdentifier.make(address: BluetoothAddress(rawValue: 42), type: .public)
        #expect(central.retrievePeripherals(identifiers: [stranger]).first?.address == BluetoothAddress(rawValue: 42))
    }
}

/// The store never writes a record it would move aside as corrupt when it next opens.
@Suite("FileStore: records within the size it reads back")
struct FileStoreRecordSizeTests {
    @Test("a record over the size limit is refused, and the old one stays")
    func oversizeRecordIsRefused() throws {
        let dir = StoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try FileStore(directory: dir)
        var record = PeripheralRecord(address: StoreTests.sensor, addressType: .random, name: "small")
        try store.save(record)
        // 40,000 services of one characteristic each, 128-bit UUIDs: a real database's
        // share of handles, over 16 MiB as pretty-printed JSON.
        let uuid = BluetoothUUID("A77E0001-0000-1000-8000-00805F9B34FB")!
        record.cache = GATTCache(services: (0..<40_000).map { i in
            let start = AttributeHandle(UInt16(1 + i))
            return Service(uuid: uuid, startHandle: start, endHandle: start, characteristics: [
                Characteristic(uuid: uuid, properties: [.read, .write, .notify], declarationHandle: start,
                               valueHandle: start, endHandle: start, serviceHandle: start)])
        }, databaseHash: nil)
        record.name = "big"
        #expect(throws: StoreError.self) { try store.save(record) }
        #expect(throws: StoreError.self) { try store.update(address: StoreTests.sensor, type: .random) { $0 = record } }
        let reopened = try FileStore(directory: dir)
        #expect(reopened.problems.isEmpty)
        #expect(reopened.record(for: record.identifier)?.name == "small")
    }
}
