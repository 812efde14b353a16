import HCI
import SMP
import Testing
@testable import Transport

/// The keys the kernel reports on the management channel and the Load commands that give
/// them back, with byte vectors laid out field by field from BlueZ's doc/mgmt-api.txt.
@Suite struct KernelPairingKeyTests {
    static let address: [UInt8] = [0x00, 0x00, 0x00, 0x01, 0xAA, 0x00]  // 00:AA:01:00:00:00
    static let value: [UInt8] = Array(0xA0...0xAF)
    static let peer = KernelPeer(adapterIndex: 1, address: BluetoothAddress("00:AA:01:00:00:00")!, addressType: .lePublic)

    /// New Long Term Key (0x000A) on hci1: Store_Hint 1, LE public, Authenticated P-256,
    /// Central 1, size 16, EDIV 0x1234, Rand 0x0102030405060708.
    static let newLTK: [UInt8] = [0x0A, 0x00, 0x01, 0x00, 37, 0x00, 0x01] + address
        + [0x01, 0x03, 0x01, 0x10, 0x34, 0x12, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01] + value

    /// New Identity Resolving Key (0x0018): Store_Hint 1, Random_Address 4A:01:02:03:04:05,
    /// identity LE public 00:AA:01:00:00:00.
    static let newIRK: [UInt8] = [0x18, 0x00, 0x01, 0x00, 30, 0x00, 0x01, 0x05, 0x04, 0x03, 0x02, 0x01, 0x4A]
        + address + [0x01] + value

    /// New Signature Resolving Key (0x0019): Store_Hint 0, LE public, Authenticated remote CSRK.
    static let newCSRK: [UInt8] = [0x19, 0x00, 0x01, 0x00, 25, 0x00, 0x00] + address + [0x01, 0x03] + value

    static func key(_ bytes: [UInt8]) -> KernelPairingKey? {
        MgmtPacket(decoding: bytes).flatMap(KernelPairingKey.init)
    }

    @Test func decodesNewLongTermKey() throws {
        guard case .longTermKey(let key) = try #require(Self.key(Self.newLTK)) else {
            Issue.record("not an LTK")
            return
        }
        #expect(key.peer == Self.peer)
        #expect(key.type == .authenticatedP256 && key.type.isAuthenticated && key.type.isSecureConnections)
        #expect(key.central)
        #expect(key.encryptionSize == 16)
        #expect(key.encryptedDiversifier == 0x1234)
        #expect(key.random == 0x0102_0304_0506_0708)
        #expect(key.value.bytes == Self.value)
        #expect(key.storeHint)
        // Never printed.
        #expect(!"\(key)".contains("a0") && "\(key)".contains("<redacted>"))
    }

    @Test func decodesNewIdentityResolvingKey() throws {
        guard case .identityResolvingKey(let key) = try #require(Self.key(Self.newIRK)) else {
            Issue.record("not an IRK")
            return
        }
        #expect(key.peer == Self.peer)
        #expect(key.resolvedAddress == BluetoothAddress("4A:01:02:03:04:05"))
        #expect(key.value.bytes == Self.value)
        var identityOnly = Self.newIRK
        identityOnly.replaceSubrange(7..<13, with: [0, 0, 0, 0, 0, 0])
        guard case .identityResolvingKey(let plain) = try #require(Self.key(identityOnly)) else { return }
        #expect(plain.resolvedAddress == nil, "00:00:00:00:00:00 means the peer paired under its identity")
    }

    @Test func decodesNewSignatureResolvingKey() throws {
        guard case .signatureKey(let key) = try #require(Self.key(Self.newCSRK)) else {
            Issue.record("not a CSRK")
            return
        }
        #expect(key.peer == Self.peer)
        #expect(key.kind == .authenticatedRemote && !key.kind.isLocal && key.kind.isAuthenticated)
        #expect(!key.storeHint)
    }

    @Test func damagedKeyEventsAreIgnored() {
        for event in [Self.newLTK, Self.newIRK, Self.newCSRK] {
            for length in 0..<event.count {
                #expect(Self.key(Array(event.prefix(length))) == nil, "cut to \(length)")
            }
            // A declared length one short of the fields.
            var short = event
            short[4] -= 1
            #expect(Self.key(short) == nil)
        }
        var unknownType = Self.newLTK
        unknownType[14] = 0x05
        #expect(Self.key(unknownType) == nil, "Key_Type 0x05 is not defined")
        var unknownCSRK = Self.newCSRK
        unknownCSRK[14] = 0x04
        #expect(Self.key(unknownCSRK) == nil)
        #expect(Self.key(KernelPairingAgentTests.justWorks) == nil, "not a key event")
    }

    @Test func publicDecoderSortsRequestsFromKeys() {
        #expect(KernelManagementEvent(decoding: Self.newCSRK).map { if case .key = $0 { true } else { false } } == true)
        #expect(KernelManagementEvent(decoding: KernelPairingAgentTests.justWorks)
                == .pairingRequest(KernelPairingRequest(peer: KernelPairingAgentTests.peer, kind: .justWorks)))
        // Command Complete for Set IO Capability: neither.
        #expect(KernelManagementEvent(decoding: [0x01, 0x00, 0x01, 0x00, 0x03, 0x00, 0x18, 0x00, 0x00]) == nil)
        #expect(KernelManagementEvent(decoding: []) == nil)
    }

    @Test func loadLongTermKeysCarriesTheEventsKeyBack() throws {
        guard case .longTermKey(let key) = try #require(Self.key(Self.newLTK)) else { return }
        let command = try #require(KernelKeyCommands.loadLongTermKeys([key, key], index: 1))
        // Opcode 0x0013, index 1, length 2 + 2 × 36; Key_Count 2; each key is the event's
        // Key field unchanged (the event minus header and Store_Hint).
        let entry = Array(Self.newLTK[7...])
        #expect(entry.count == 36)
        #expect(command == [0x13, 0x00, 0x01, 0x00, 74, 0x00, 0x02, 0x00] + entry + entry)
        #expect(KernelKeyCommands.loadLongTermKeys([], index: 0) == [0x13, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00])
    }

    @Test func loadIdentityResolvingKeysCarriesIdentityAndValue() throws {
        let key = KernelIdentityResolvingKey(peer: Self.peer, value: try #require(SMPKey(Self.value)))
        let command = try #require(KernelKeyCommands.loadIdentityResolvingKeys([key], index: 1))
        #expect(command == [0x30, 0x00, 0x01, 0x00, 25, 0x00, 0x01, 0x00] + Self.address + [0x01] + Self.value)
    }

    @Test func tooManyKeysForOneCommandAreRefused() throws {
        let key = KernelIdentityResolvingKey(peer: Self.peer, value: try #require(SMPKey(Self.value)))
        let most = (Int(UInt16.max) - 2) / 23
        #expect(KernelKeyCommands.loadIdentityResolvingKeys(Array(repeating: key, count: most), index: 1) != nil)
        #expect(KernelKeyCommands.loadIdentityResolvingKeys(Array(repeating: key, count: most + 1), index: 1) == nil)
    }

    @Test func onlyIdentitiesTheKernelAcceptsAreLoaded() {
        #expect(Self.peer.isLoadableIdentity(on: 1))
        #expect(!Self.peer.isLoadableIdentity(on: 0), "another adapter's key")
        let staticRandom = KernelPeer(adapterIndex: 1, address: BluetoothAddress("C1:02:03:04:05:06")!, addressType: .leRandom)
        #expect(staticRandom.isLoadableIdentity(on: 1))
        let resolvable = KernelPeer(adapterIndex: 1, address: BluetoothAddress("4A:01:02:03:04:05")!, addressType: .leRandom)
        #expect(!resolvable.isLoadableIdentity(on: 1), "a resolvable private address is no identity")
        let classic = KernelPeer(adapterIndex: 1, address: BluetoothAddress("00:AA:01:00:00:00")!, addressType: .bredr)
        #expect(!classic.isLoadableIdentity(on: 1))
    }
}
