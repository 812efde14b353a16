import Foundation
import Synchronization
import Testing
@testable import Attune
import Transport

/// Bonds in the store: what a pairing leaves, where it is kept, how it is found again
/// (by address, identity address or resolvable private address), our host identity, and
/// the files' modes.
@Suite("Store: bonds and the host identity")
struct BondStoreTests {
    static let peer = BluetoothAddress("F0:A7:7E:00:00:01")!
    /// The spec's `ah` sample (Vol 3 Part H D.7): this IRK made this resolvable private address.
    static let sampleIRK: [UInt8] = Array([0xec, 0x02, 0x34, 0xa3, 0x57, 0xc8, 0xad, 0x05,
                                           0x34, 0x10, 0x10, 0xa6, 0x0a, 0x39, 0x7d, 0x9b].reversed())
    static let sampleRPA = BluetoothAddress(0x70, 0x81, 0x94, 0x0D, 0xFB, 0xAA)

    static func keys(role: PairingKeys.Role = .central, peer: BluetoothAddress = peer,
                     identity: BluetoothAddress? = nil, irk: [UInt8]? = nil) -> PairingKeys {
        PairingKeys(role: role, peerAddress: peer, peerAddressType: .random, identityAddress: identity,
                    identityAddressType: identity == nil ? nil : .public, longTermKey: Array(0xA0..<0xB0),
                    identityResolvingKey: irk, signatureKey: Array(0xC0..<0xD0), keySize: 16)
    }

    static func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? -1) & 0o777
    }

    @Test("concurrent updates of one record (a bond from the host's thread, subscriptions from the peripheral) never undo each other")
    func updatesAreOneStep() throws {
        let dir = StoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try FileStore(directory: dir)
        let keeper = StoreBondKeeper(store: store)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for step in 0..<8 {
                if worker == 0 && step == 4 { keeper.paired(Self.keys()) }
                let handle = AttributeHandle(UInt16(worker * 100 + step + 1))
                try? store.update(address: Self.peer, type: .random) { record in
                    record.subscriptions.append(Subscription(serviceUUID: BluetoothUUID(0x180D), characteristicUUID: BluetoothUUID(0x2A37),
                                                             valueHandle: handle, configurationHandle: handle, kind: .notify))
                }
            }
        }
        let record = try #require(try FileStore(directory: dir).record(for: PeripheralIdentifier.make(address: Self.peer, type: .random)))
        #expect(record.subscriptions.count == 32, "every update kept")
        #expect(record.bond != nil, "the bond survived the other writers")
    }

    @Test("a pairing's keys become the record's bond, the listener hears it, and a reopened FileStore still has it, mode 0600")
    func pairedKeysAreSaved() throws {
        let dir = StoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try FileStore(directory: dir)
        let keeper = StoreBondKeeper(store: store)
        let heard = LockedList<String>()
        keeper.setListener { event in
            if case .bonded(let record, _) = event { heard.append(record.address.description) }
        }
        keeper.paired(Self.keys())
        let id = PeripheralIdentifier.make(address: Self.peer, type: .random)
        let bond = try #require(store.record(for: id)?.bond)
        #expect(bond.longTermKey == Array(0xA0..<0xB0) && bond.signatureResolvingKey == Array(0xC0..<0xD0))
        #expect(heard.values == [Self.peer.description])
        let reopened = try FileStore(directory: dir)
        #expect(reopened.problems.isEmpty)
        #expect(reopened.record(for: id)?.bond == bond)
        #expect(try Self.mode(dir + "/" + id.uuidString + ".json") == 0o600)
        #expect(try Self.mode(dir) == 0o700, "the store's directory is the owner's only")
        #expect(keeper.bond(for: Self.peer, type: .random, role: .central)?.longTermKey == bond.longTermKey)
    }

    @Test("allBonds lists every stored bond under its record, for the kernel transport to load on start")
    func allBondsForTheKernel() throws {
        let store = InMemoryStore()
        let keeper = StoreBondKeeper(store: store)
        #expect(keeper.allBonds().isEmpty)
        try store.update(address: BluetoothAddress("C0:00:00:00:00:09")!, type: .random) { _ in }
        keeper.paired(Self.keys())
        let bonds = keeper.allBonds()
        #expect(bonds.count == 1, "records without a bond are not bonds")
        #expect(bonds.first?.peerAddress == Self.peer && bonds.first?.longTermKey == Array(0xA0..<0xB0))
    }

    @Test("as peripheral, a central's bond is kept under the identity address it distributed, and found by it")
    func centralsBondUnderItsIdentity() throws {
        let store = InMemoryStore()
        let keeper = StoreBondKeeper(store: store)
        let identity = BluetoothAddress("00:1B:DC:01:02:03")!
        keeper.paired(Self.keys(role: .peripheral, peer: Self.sampleRPA, identity: identity, irk: Self.sampleIRK))
        let record = try #require(store.record(for: PeripheralIdentifier.make(address: identity, type: .public)))
        #expect(record.bond?.identityAddress == identity)
        // The same central, back with its resolvable private address: found through its IRK.
        #expect(keeper.bond(for: Self.sampleRPA, type: .random, role: .peripheral)?.longTermKey == Array(0xA0..<0xB0))
        #expect(keeper.bond(for: BluetoothAddress(0x70, 0x81, 0x94, 0x0D, 0xFB, 0xAB), type: .random, role: .peripheral) == nil,
                "an address the IRK did not make finds nothing")
        #expect(keeper.bond(for: identity, type: .public, role: .peripheral) != nil)
    }

    @Test("a bonded peripheral advertising a new resolvable private address maps to its bonded record")
    func scanResultsResolveToTheBond() throws {
        let store = InMemoryStore()
        try store.save(PeripheralRecord(address: Self.peer, addressType: .random,
                                        bond: Bond(longTermKey: Array(repeating: 1, count: 16), identityResolvingKey: Self.sampleIRK)))
        let central = CentralManager(transport: .memory(MemoryRadio()), store: store)
        let resolved = central.peripheral(address: Self.sampleRPA, type: .random)
        #expect(resolved.identifier == PeripheralIdentifier.make(address: Self.peer, type: .random))
        let plain = central.peripheral(address: BluetoothAddress(0x70, 0x81, 0x94, 0x0D, 0xFB, 0xAB), type: .random)
        #expect(plain.address == BluetoothAddress(0x70, 0x81, 0x94, 0x0D, 0xFB, 0xAB))
    }

    @Test("the host identity is made once, kept with mode 0600, and the same for every keeper and process")
    func hostIdentityLasts() throws {
        let dir = StoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = StoreBondKeeper(store: try FileStore(directory: dir)).hostIdentity()
        #expect(first.address.bytes.0 >> 6 == 0b11, "a static random address")
        #expect(first.identityResolvingKey.count == 16)
        let reopened = try FileStore(directory: dir)
        #expect(reopened.hostIdentity == first)
        #expect(StoreBondKeeper(store: reopened).hostIdentity() == first)
        #expect(try Self.mode(dir + "/" + FileStore.identityFileName) == 0o600)
        #expect(reopened.records().isEmpty, "the identity file is no peripheral record")
        #expect(!"\(first)".contains(hexString(first.identityResolvingKey)))
    }

    @Test("a corrupt identity file is reported and set aside; a new identity replaces it")
    func corruptIdentity() throws {
        let dir = StoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try FileStore(directory: dir)
        try Data("{\"address\":\"00:11:22:33:44:55\",\"identityResolvingKey\":[1]}".utf8)
            .write(to: URL(fileURLWithPath: dir + "/" + FileStore.identityFileName))
        let store = try FileStore(directory: dir)
        #expect(store.hostIdentity == nil)
        #expect(store.problems.count == 1 && store.problems.first?.movedTo != nil)
        let made = StoreBondKeeper(store: store).hostIdentity()
        #expect(try FileStore(directory: dir).hostIdentity == made)
    }

    @Test("bonds: central.bonds lists bonded records only, removeBond(for:) forgets the keys and keeps the record")
    func bondsAndRemoveBond() async throws {
        let store = InMemoryStore([
            PeripheralRecord(address: Self.peer, addressType: .random, name: "bonded",
                             bond: Bond(longTermKey: Array(repeating: 7, count: 16))),
            PeripheralRecord(address: BluetoothAddress("00:AA:01:01:00:01")!, addressType: .public, name: "plain"),
        ])
        let central = CentralManager(transport: .memory(MemoryRadio()), store: store)
        #expect(central.bonds.map(\.name) == ["bonded"])
        let peripheral = central.peripheral(address: Self.peer, type: .random)
        #expect(try await central.removeBond(for: peripheral) == .storeOnly, "the memory radio keeps no keys of its own")
        #expect(central.bonds.isEmpty)
        #expect(store.record(for: peripheral.identifier)?.name == "bonded", "the record stays")
        #expect(try await central.removeBond(for: peripheral) == nil, "nothing left to remove")
    }

    @Test("a bond prints no key, alone or inside its record; an LTK that is not 16 octets does not load")
    func bondsNeverPrintKeys() throws {
        let bond = Bond(longTermKey: Array(repeating: 0xAB, count: 16), identityResolvingKey: Array(repeating: 0xCD, count: 16),
                        identityAddress: Self.peer, identityAddressType: .random)
        let record = PeripheralRecord(address: Self.peer, addressType: .random, bond: bond)
        for text in ["\(bond)", String(reflecting: bond), "\(record)", String(reflecting: record)] {
            #expect(!text.contains("171") && !text.lowercased().contains("abab") && !text.contains("205"), "\(text)")
        }
        let data = try JSONEncoder().encode(bond)
        #expect(try JSONDecoder().decode(Bond.self, from: data) == bond, "identity address round-trips")
        var short = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        short["longTermKey"] = [1, 2, 3]
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Bond.self, from: try JSONSerialization.data(withJSONObject: short))
        }
    }

    @Test("a stored key size outside 7…16 sets its record aside as a problem naming the file and bond.keySize",
          arguments: [-5, 0, 6, 17, 255])
    func keySizeOutsideItsRange(_ size: Int) throws {
        let dir = StoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let record = PeripheralRecord(address: Self.peer, addressType: .random,
                                      bond: Bond(longTermKey: Array(repeating: 7, count: 16)))
        try FileStore(directory: dir).save(record)
        let path = dir + "/" + record.identifier.uuidString + ".json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("\"keySize\" : 16"))
        try Data(text.replacingOccurrences(of: "\"keySize\" : 16", with: "\"keySize\" : \(size)").utf8)
            .write(to: URL(fileURLWithPath: path))
        let reopened = try FileStore(directory: dir)
        #expect(reopened.records().isEmpty, "no bond with a key size pairing cannot make")
        let problem = try #require(reopened.problems.first)
        #expect(problem.path == path && problem.field == "bond.keySize" && problem.movedTo != nil)
        #expect(problem.reason.contains("bond.keySize") && problem.reason.contains("key size \(size) is outside 7…16"), "\(problem)")
    }
}

/// A list filled from any thread.
final class LockedList<Element: Sendable>: Sendable {
    private let state = Mutex<[Element]>([])
    func append(_ element: Element) { state.withLock { $0.append(element) } }
    var values: [Element] { state.withLock { $0 } }
}
