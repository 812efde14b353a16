import Foundation
import GATT
import Testing
@testable import Transport
@testable import Attune

/// Signed writes with the CSRKs from pairing (Vol 3 Part G §4.9.2, Vol 3 Part H §2.4.5):
/// the central signs with the key it distributed and a sign counter kept in its store; the
/// peripheral manager verifies with the key the central distributed and refuses a counter
/// that does not grow past the last one it accepted, kept in its store too.
@Suite("Signed writes with the bond's CSRK", .timeLimit(.minutes(10)))
struct BondSignedWriteTests {
    static let service = BluetoothUUID("7a7e0040-5d4c-4f8e-9a64-0c3f1e2b6a10")!
    static let lock = BluetoothUUID("7a7e0041-5d4c-4f8e-9a64-0c3f1e2b6a10")!
    static let csrk: [UInt8] = Array(0x30..<0x40)
    static let otherKey: [UInt8] = Array(0x50..<0x60)

    /// A characteristic written only by signed writes, whose write needs an authenticated
    /// link (a signature made with a key from authenticated pairing stands in for one).
    static func lockService() -> ServiceDefinition {
        ServiceDefinition(service, characteristics: [
            CharacteristicDefinition(lock, properties: [.authenticatedSignedWrites, .read],
                                     permissions: AttributePermissions(read: .open, write: .authenticated), value: [0]),
        ])
    }

    static func bond(peerKey: [UInt8]? = nil, localKey: [UInt8]? = nil, peerCounter: UInt32? = nil) -> Bond {
        Bond(longTermKey: Array(repeating: 0x11, count: 16), signatureResolvingKey: peerKey,
             localSignatureKey: localKey, peerSignCounter: peerCounter, isAuthenticated: true)
    }

    static func signed(_ handle: AttributeHandle, _ value: [UInt8], counter: UInt32, key: [UInt8] = csrk) throws -> [UInt8] {
        try ATTSignature.signedWriteCommand(handle: handle, value: value, csrk: key, signCounter: counter)
    }

    // MARK: Peripheral role

    @Test("the peripheral verifies a bonded central's signed writes with the stored CSRK and keeps its counter; a replay (also to the next process) and a wrong key are dropped")
    func peripheralVerifiesAndRefusesReplays() async throws {
        let link = PeripheralAccessRuleTests.SecuredLink()
        let store = InMemoryStore([PeripheralRecord(address: link.peerAddress, addressType: link.peerAddressType,
                                                    bond: Self.bond(peerKey: Self.csrk))])
        let manager = try PeripheralManager(transport: .memory(MemoryRadio()), store: store)
        let handle = try #require(try await manager.add(Self.lockService()).characteristics.first?.valueHandle)
        await manager.accept(link)
        let id = PeripheralIdentifier.make(address: link.peerAddress, type: link.peerAddressType)

        link.peer.push(.received(try Self.signed(handle, [1], counter: 5)))
        #expect(try await link.read(handle) == [0x0B, 1], "verified, and authenticated by the bond's key")
        #expect(store.record(for: id)?.bond?.peerSignCounter == 5, "the accepted counter is kept with the bond")

        link.peer.push(.received(try Self.signed(handle, [2], counter: 5)))
        #expect(try await link.read(handle) == [0x0B, 1], "the same counter again is a replay")
        link.peer.push(.received(try Self.signed(handle, [3], counter: 6, key: Self.otherKey)))
        #expect(try await link.read(handle) == [0x0B, 1], "a signature from another key is dropped")
        #expect(store.record(for: id)?.bond?.peerSignCounter == 5)
        link.peer.finish(.closed(.hci(HCIStatus.remoteUserTerminatedConnection)))

        // The next process, on the same store: the replay is still refused.
        let again = PeripheralAccessRuleTests.SecuredLink()
        let next = try PeripheralManager(transport: .memory(MemoryRadio()), store: store)
        _ = try await next.add(Self.lockService())
        await next.accept(again)
        again.peer.push(.received(try Self.signed(handle, [4], counter: 5)))
        #expect(try await again.read(handle) == [0x0B, 0], "a counter the last process accepted is a replay")
        again.peer.push(.received(try Self.signed(handle, [7], counter: 6)))
        #expect(try await again.read(handle) == [0x0B, 7])
        #expect(store.record(for: id)?.bond?.peerSignCounter == 6)
        again.peer.finish(.closed(.hci(HCIStatus.remoteUserTerminatedConnection)))
    }

    @Test("a central without a bond (or a bond without its CSRK) has its signed writes dropped")
    func unbondedSignedWritesAreDropped() async throws {
        let link = PeripheralAccessRuleTests.SecuredLink()
        let store = InMemoryStore([PeripheralRecord(address: link.peerAddress, addressType: link.peerAddressType,
                                                    bond: Self.bond())])
        let manager = try PeripheralManager(transport: .memory(MemoryRadio()), store: store)
        let handle = try #require(try await manager.add(Self.lockService()).characteristics.first?.valueHandle)
        await manager.accept(link)
        link.peer.push(.received(try Self.signed(handle, [1], counter: 0)))
        #expect(try await link.read(handle) == [0x0B, 0])
        link.peer.finish(.closed(.hci(HCIStatus.remoteUserTerminatedConnection)))
    }

    // MARK: Central role

    struct Rig {
        let radio = MemoryRadio()
        let peripheralStore = InMemoryStore()
        let manager: PeripheralManager

        init() async throws {
            manager = try PeripheralManager(transport: .memory(radio), name: "Lock", store: peripheralStore)
            _ = try await manager.add(BondSignedWriteTests.lockService())
            try await manager.startAdvertising(localName: "Lock", serviceUUIDs: [BondSignedWriteTests.service])
        }

        /// Connects a new central on `store` (our bond saved there first, with our CSRK)
        /// and gives the peripheral's store the central's bond: the memory radio gives every
        /// central manager a new address, where real hardware keeps one identity, so the
        /// bond (with the counter it last accepted) moves to the address connected now.
        func connect(_ store: InMemoryStore) async throws -> (CentralManager, Peripheral, Attune.Characteristic) {
            let central = CentralManager(transport: .memory(radio), store: store)
            let ad = try await first(try central.scan(services: [BondSignedWriteTests.service]), "advertisement") { _ in true }
            let peripheral = central.peripheral(for: ad)
            if store.record(for: peripheral.identifier)?.bond == nil {
                try store.update(address: peripheral.address, type: peripheral.addressType) {
                    $0.bond = BondSignedWriteTests.bond(localKey: BondSignedWriteTests.csrk)
                }
            }
            try await central.connect(peripheral)
            let earlier = peripheralStore.records().first { $0.bond != nil }
            let manager = self.manager
            let isNew: @Sendable (Central) -> Bool = { $0.address != earlier?.address }
            try await eventually("the peripheral manager sees the new central") {
                await manager.connectedCentrals.contains(where: isNew)
            }
            let centralAddress = try #require(await manager.connectedCentrals.first(where: isNew))
            try peripheralStore.update(address: centralAddress.address, type: centralAddress.addressType) {
                $0.bond = earlier?.bond ?? BondSignedWriteTests.bond(peerKey: BondSignedWriteTests.csrk)
            }
            let service = try #require(try await peripheral.discoverServices([BondSignedWriteTests.service]).first)
            let lock = try #require(try await peripheral.discoverCharacteristics(for: service).first)
            return (central, peripheral, lock)
        }
    }

    @Test("on an unencrypted link a write without response to a signed-writes-only characteristic is signed with our CSRK; the counter is saved with each write and a new CentralManager on the same store goes on from it")
    func centralSignsAndKeepsItsCounter() async throws {
        let rig = try await Rig()
        let store = InMemoryStore()
        let (central, peripheral, lock) = try await rig.connect(store)
        try await peripheral.writeValue([1], for: lock, type: .withoutResponse)
        #expect(try await peripheral.readValue(for: lock) == [1], "the peripheral verified the signature")
        try await peripheral.writeValue([2], for: lock, type: .withoutResponse)
        #expect(try await peripheral.readValue(for: lock) == [2], "the counter grew")
        #expect(store.record(for: peripheral.identifier)?.bond?.localSignCounter == 2, "one counter saved per write")
        #expect(rig.peripheralStore.records().compactMap(\.bond?.peerSignCounter) == [1])
        await central.cancelConnection(peripheral)

        // A new process on the same store: it starts from the saved counter, so the
        // peripheral, which accepted counter 1 already, takes its write.
        let (next, again, lockAgain) = try await rig.connect(store)
        try await again.writeValue([3], for: lockAgain, type: .withoutResponse)
        #expect(try await again.readValue(for: lockAgain) == [3], "counter 2 is past the last one accepted")
        #expect(store.record(for: again.identifier)?.bond?.localSignCounter == 3)
        #expect(rig.peripheralStore.records().compactMap(\.bond?.peerSignCounter).contains(2))
        await next.cancelConnection(again)
    }

    @Test("a signed write without a CSRK of ours in the store fails with a reason and sends nothing")
    func centralWithoutKeyRefuses() async throws {
        let rig = try await Rig()
        let store = InMemoryStore()
        let central = CentralManager(transport: .memory(rig.radio), store: store)
        let ad = try await first(try central.scan(services: [Self.service]), "advertisement") { _ in true }
        let peripheral = central.peripheral(for: ad)
        try await central.connect(peripheral)
        let service = try #require(try await peripheral.discoverServices([Self.service]).first)
        let lock = try #require(try await peripheral.discoverCharacteristics(for: service).first)
        await #expect(throws: AttuneError.self) {
            try await peripheral.writeValue([1], for: lock, type: .withoutResponse)
        }
        #expect(try await peripheral.readValue(for: lock) == [0])
        await central.cancelConnection(peripheral)
    }

    // MARK: The store

    @Test("a bond keeps our CSRK and both counters, prints none of its keys, and a store file from before signed writes still loads")
    func bondCodable() throws {
        let bond = Bond(longTermKey: Array(repeating: 0xAB, count: 16), signatureResolvingKey: Array(repeating: 0xCD, count: 16),
                        localSignatureKey: Array(repeating: 0xEF, count: 16), localSignCounter: 9, peerSignCounter: 4)
        let data = try JSONEncoder().encode(bond)
        #expect(try JSONDecoder().decode(Bond.self, from: data) == bond)
        for text in ["\(bond)", String(reflecting: bond)] {
            #expect(!text.contains("239") && !text.lowercased().contains("efef"), "\(text)")
        }
        var old = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        for key in ["localSignatureKey", "localSignCounter", "peerSignCounter"] { old[key] = nil }
        let loaded = try JSONDecoder().decode(Bond.self, from: try JSONSerialization.data(withJSONObject: old))
        #expect(loaded.localSignatureKey == nil && loaded.localSignCounter == 0 && loaded.peerSignCounter == nil)
        #expect(loaded.signatureResolvingKey == bond.signatureResolvingKey)

        let keys = PairingKeys(role: .central, peerAddress: BluetoothAddress(0xC0, 1, 2, 3, 4, 5), peerAddressType: .random,
                               longTermKey: Array(repeating: 1, count: 16), signatureKey: Array(repeating: 2, count: 16),
                               localSignatureKey: Array(repeating: 0xEF, count: 16))
        #expect(!"\(keys)".lowercased().contains("efef") && !"\(keys)".contains("239"))
        let fromPairing = Bond(keys)
        #expect(fromPairing.localSignatureKey == keys.localSignatureKey && fromPairing.localSignCounter == 0)
        #expect(fromPairing.peerSignCounter == nil)
    }
}
