import Attune
import Foundation
import Testing

/// A bonded peripheral that uses resolvable private addresses is reached where it
/// advertises now, not at the address it had when it was last seen: the central scans
/// until an address resolves with the bond's IRK, then connects there.
@Suite("Central: bonded peers with resolvable private addresses")
struct PrivateAddressReconnectTests {
    /// The address it had when we bonded: resolvable in form, gone since.
    static let earlier = BluetoothAddress(0x4A, 0x11, 0x22, 0x33, 0x44, 0x55)

    @Test("connect to a bonded peer known by an old resolvable address finds its new one through the IRK and connects")
    func connectFollowsTheNewAddress() async throws {
        let radio = MemoryRadio()
        // The peripheral now advertises at the spec's `ah` sample address, made from the sample IRK.
        radio.assignNextAddress(BondStoreTests.sampleRPA)
        let manager = try PeripheralManager(transport: .memory(radio), name: "Private")
        _ = try await manager.add(BondSignedWriteTests.lockService())
        try await manager.startAdvertising(localName: "Private")

        let store = InMemoryStore([PeripheralRecord(address: Self.earlier, addressType: .random, name: "Private",
                                                    bond: Bond(longTermKey: Array(repeating: 1, count: 16),
                                                               identityResolvingKey: BondStoreTests.sampleIRK))])
        let central = CentralManager(transport: .memory(radio), store: store)
        let peripheral = central.peripheral(address: Self.earlier, type: .random)
        #expect(peripheral.identifier == PeripheralIdentifier.make(address: Self.earlier, type: .random))
        // No scan of our own first: connect alone has to find it.
        try await central.connect(peripheral, timeout: hangGuard)
        #expect(await peripheral.state == .connected)
        let services = try await peripheral.discoverServices([BondSignedWriteTests.service])
        #expect(services.count == 1, "the link reached the peripheral at its new address")
        await central.cancelConnection(peripheral)
    }

    @Test("a peer without a bond is connected where it was asked, with no scan first (and times out when it is not there)")
    func unbondedPeerIsNotSearched() async throws {
        let radio = MemoryRadio()
        radio.assignNextAddress(BondStoreTests.sampleRPA)
        let manager = try PeripheralManager(transport: .memory(radio), name: "Private")
        _ = try await manager.add(BondSignedWriteTests.lockService())
        try await manager.startAdvertising(localName: "Private")
        let central = CentralManager(transport: .memory(radio), store: InMemoryStore())
        let peripheral = central.peripheral(address: Self.earlier, type: .random)
        do {
            try await central.connect(peripheral, timeout: .milliseconds(300))
            Issue.record("connected to \(Self.earlier), where nobody advertises")
        } catch {
            #expect("\(error)".lowercased().contains("time"), "\(error)")
        }
    }
}
