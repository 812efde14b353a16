import HCI
import SMP
import Testing
@testable import Transport

/// The kernel's New LTK / New IRK / New CSRK events as the bonds a BondKeeper stores, and
/// stored bonds as the keys the kernel loads again.
@Suite struct KernelBondCollectorTests {
    static let identity = BluetoothAddress("00:AA:01:00:00:00")!
    static let rpa = BluetoothAddress("4A:01:02:03:04:05")!
    static let peer = KernelPeer(adapterIndex: 1, address: identity, addressType: .lePublic)
    static let ltkValue = SMPKey(Array(0xA0...0xAF))!
    static let irkValue = SMPKey(Array(0xB0...0xBF))!
    static let csrkValue = SMPKey(Array(0xC0...0xCF))!

    static func ltk(_ type: KernelLongTermKey.KeyType, central: Bool, hint: Bool = true) -> KernelPairingKey {
        .longTermKey(KernelLongTermKey(peer: peer, type: type, central: central, encryptionSize: 16,
                                       encryptedDiversifier: 0x1234, random: 0x0102_0304_0506_0708, value: ltkValue,
                                       storeHint: hint))
    }

    @Test func aSecureConnectionsPairingWithIRKAndCSRKIsOneBond() throws {
        var collector = KernelBondCollector()
        let none: (BluetoothAddress) -> PairingKeys.Role? = { _ in nil }
        #expect(collector.add(.identityResolvingKey(KernelIdentityResolvingKey(peer: Self.peer, value: Self.irkValue,
                                                                              resolvedAddress: Self.rpa)), role: none) == nil)
        #expect(collector.add(.signatureKey(KernelSignatureKey(peer: Self.peer, kind: .authenticatedLocal,
                                                               value: SMPKey(Array(repeating: 1, count: 16))!)), role: none) == nil)
        #expect(collector.add(.signatureKey(KernelSignatureKey(peer: Self.peer, kind: .authenticatedRemote,
                                                               value: Self.csrkValue)), role: none) == nil)
        let completed = collector.add(Self.ltk(.authenticatedP256, central: false), role: { $0 == Self.rpa ? .peripheral : nil })
        let keys = try #require(completed)
        #expect(keys.role == .peripheral)
        #expect(keys.peerAddress == Self.rpa && keys.peerAddressType == .random)
        #expect(keys.identityAddress == Self.identity && keys.identityAddressType == .public)
        #expect(keys.longTermKey == Self.ltkValue.bytes)
        #expect(keys.identityResolvingKey == Self.irkValue.bytes)
        #expect(keys.signatureKey == Self.csrkValue.bytes, "the peer's CSRK, not ours")
        #expect(keys.localSignatureKey == Array(repeating: 1, count: 16), "ours, which signs our client's writes")
        #expect(keys.isAuthenticated && keys.isSecureConnections && keys.keySize == 16)
        #expect(!"\(keys)".contains("a0"))
        // The IRK and CSRK went with that bond: the next LTK stands alone.
        let alone = collector.add(Self.ltk(.unauthenticatedP256, central: false), role: none)
        let next = try #require(alone)
        #expect(next.identityResolvingKey == nil && next.signatureKey == nil && next.localSignatureKey == nil
                    && !next.isAuthenticated)
        #expect(next.peerAddress == Self.identity && next.identityAddress == nil)
    }

    @Test func legacyKeepsTheLTKForOurRoleWithEDIVAndRand() throws {
        var collector = KernelBondCollector()
        let central: (BluetoothAddress) -> PairingKeys.Role? = { _ in .central }
        // Ours, for links where we are peripheral: not this bond's.
        #expect(collector.add(Self.ltk(.authenticatedLegacy, central: false), role: central) == nil)
        let ours = collector.add(Self.ltk(.authenticatedLegacy, central: true), role: central)
        let keys = try #require(ours)
        #expect(keys.role == .central)
        #expect(keys.encryptedDiversifier == 0x1234 && keys.random == 0x0102_0304_0506_0708)
        #expect(keys.isAuthenticated && !keys.isSecureConnections)
        // With the role unknown, each direction's key is a bond for its role.
        var unknown = KernelBondCollector()
        let either = unknown.add(Self.ltk(.unauthenticatedLegacy, central: false), role: { _ in nil })
        let peripheralKey = try #require(either)
        #expect(peripheralKey.role == .peripheral && !peripheralKey.isAuthenticated)
    }

    @Test func keysTheKernelSaysNotToStoreAreDropped() {
        var collector = KernelBondCollector()
        #expect(collector.add(Self.ltk(.authenticatedP256, central: false, hint: false), role: { _ in nil }) == nil)
    }

    @Test func storedBondsLoadUnderTheIdentity() throws {
        let sc = PairingKeys(role: .central, peerAddress: Self.rpa, peerAddressType: .random, identityAddress: Self.identity,
                             identityAddressType: .public, longTermKey: Self.ltkValue.bytes,
                             identityResolvingKey: Self.irkValue.bytes, keySize: 16, isAuthenticated: true,
                             isSecureConnections: true)
        let legacy = PairingKeys(role: .central, peerAddress: BluetoothAddress("C0:00:00:00:00:02")!, peerAddressType: .random,
                                 longTermKey: Self.ltkValue.bytes, encryptedDiversifier: 7, random: 9, keySize: 7,
                                 isSecureConnections: false)
        let broken = PairingKeys(role: .central, peerAddress: Self.identity, peerAddressType: .public, longTermKey: [1, 2])
        let loaded = KernelStoredKeys.keys(for: [sc, legacy, broken], adapterIndex: 1)
        #expect(loaded.longTermKeys.count == 3, "one SC key; the legacy key both ways; the damaged one left out")
        let first = try #require(loaded.longTermKeys.first)
        #expect(first.peer == Self.peer && first.type == .authenticatedP256 && first.value == Self.ltkValue)
        let legacyKeys = loaded.longTermKeys.dropFirst()
        #expect(legacyKeys.map(\.central) == [true, false])
        #expect(legacyKeys.allSatisfy {
            $0.type == .unauthenticatedLegacy && $0.encryptedDiversifier == 7 && $0.random == 9 && $0.encryptionSize == 7
                && $0.peer.addressType == .leRandom
        })
        #expect(loaded.identityResolvingKeys == [KernelIdentityResolvingKey(peer: Self.peer, value: Self.irkValue)])
        // Round trip: what the kernel reports back for a loaded key is the same bond.
        let again = KernelBondCollector.pairingKeys(first, role: .central, irk: nil, csrk: nil)
        #expect(again.longTermKey == sc.longTermKey && again.isAuthenticated && again.keySize == 16)
    }
}
