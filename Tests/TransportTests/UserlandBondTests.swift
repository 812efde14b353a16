import ControllerTestSupport
import HCI
@testable import SMP
import Synchronization
import Testing
@testable import Transport

/// Bonds on the userland host: a completed pairing reaches the keeper as ``PairingKeys``,
/// our identity is distributed, a bonded central's LTK request is answered from the keeper,
/// and a bonded peripheral's link is encrypted with the stored key without SMP.
@Suite("Userland host: bonds")
struct UserlandBondTests {
    /// A keeper that remembers what it was told and answers lookups from `bonds`.
    final class RecordingKeeper: BondKeeper {
        let state = Mutex<(paired: [PairingKeys], failed: [AttuneError], bonds: [BluetoothAddress: PairingKeys])>(([], [], [:]))
        let identity = HostIdentity(address: UserlandSecurityTests.ours, identityResolvingKey: Array(0x40..<0x50))
        func hostIdentity() -> HostIdentity { identity }
        func bond(for address: BluetoothAddress, type: BluetoothAddressType, role: PairingKeys.Role) -> PairingKeys? {
            state.withLock { $0.bonds[address] }
        }
        func paired(_ keys: PairingKeys) { state.withLock { $0.paired.append(keys) } }
        func bondFailed(for address: BluetoothAddress, type: BluetoothAddressType, _ error: AttuneError) {
            state.withLock { $0.failed.append(error) }
        }
    }

    static func harness(_ keeper: RecordingKeeper, prefersPublicAddress: Bool = false) -> UserlandSecurityTests.Harness {
        var harness = UserlandSecurityTests.Harness(prefersPublicAddress: prefersPublicAddress)
        var configuration = SMPConfiguration()
        configuration.identity = SMPConfiguration.LocalIdentity(
            identityResolvingKey: SMPKey(keeper.identity.identityResolvingKey)!,
            address: SMPAddress(keeper.identity.address, isRandom: true))
        harness.security = UserlandSecurity(configuration: configuration, keeper: keeper)
        return harness
    }

    /// Pairs the harness's link with its peer, as `pairsAndEncrypts` does, to the end of key distribution.
    static func pair(_ harness: inout UserlandSecurityTests.Harness) async -> [UInt8]? {
        var ltk: [UInt8]?
        _ = await harness.raise { h in
            guard let command = h.lastEnableEncryption else { return }
            ltk = Array(command[16...])
            h.receive(H4Packet.commandStatus(LEEnableEncryption.opcode.rawValue))
            h.receive(UserlandSecurityTests.Harness.encryptionChange(status: 0, enabled: 1))
            h.peerOut.removeAll()
            h.peer.encryptionChanged(at: h.now, into: &h.peerOut)
            h.deliverPeerOutput()
        }
        return ltk
    }

    @Test("a completed pairing hands its keys to the keeper (SC: the link's LTK, EDIV and Rand zero); nothing before it did")
    func pairingReachesTheKeeper() async throws {
        let keeper = RecordingKeeper()
        var harness = Self.harness(keeper)
        let ltk = try #require(await Self.pair(&harness))
        #expect(harness.peerPaired)
        let paired = keeper.state.withLock { $0.paired }
        try #require(paired.count == 1, "\(paired)")
        let keys = paired[0]
        #expect(keys.role == .central && keys.peerAddress == UserlandSecurityTests.peer && keys.peerAddressType == .random)
        #expect(keys.longTermKey == ltk, "the key that encrypted this link encrypts the next ones")
        #expect(keys.encryptedDiversifier == 0 && keys.random == 0)
        #expect(keys.isSecureConnections && !keys.isAuthenticated && keys.keySize == 16)
        #expect(!keys.description.contains(hexString(keys.longTermKey)), "no key in the description")
        // Our IRK and identity address went out in key distribution.
        let identity = try #require(harness.smpSent.first { $0.first == 0x08 })
        #expect(Array(identity.dropFirst()) == keeper.identity.identityResolvingKey)
        let address = try #require(harness.smpSent.first { $0.first == 0x09 })
        #expect(address == [0x09, 0x01] + keeper.identity.address.littleEndianBytes)
    }

    @Test("a controller with a public address: it is our identity address in key distribution (type public), the IRK as kept")
    func publicAddressIsTheDistributedIdentity() async throws {
        let keeper = RecordingKeeper()
        var harness = Self.harness(keeper, prefersPublicAddress: true)
        #expect(harness.host.ownAddressType == .public)
        _ = try #require(await Self.pair(&harness))
        #expect(harness.peerPaired, "the peer's f5/f6 used our public address, as we did")
        let identity = try #require(harness.smpSent.first { $0.first == 0x08 })
        #expect(Array(identity.dropFirst()) == keeper.identity.identityResolvingKey)
        let address = try #require(harness.smpSent.first { $0.first == 0x09 })
        #expect(address == [0x09, 0x00] + UserlandSecurityTests.ourPublic.littleEndianBytes)
    }

    @Test("LE legacy keys: as central the peer's distributed LTK with its EDIV and Rand, as peripheral our own")
    func legacyKeysPickTheRightLTK() throws {
        var result = PairingResult(securityLevel: .authenticated, secureConnections: false, associationModel: .justWorks,
                                   keySize: 10, bonded: true, longTermKey: nil, localKeys: DistributedKeys(),
                                   peerKeys: DistributedKeys(), linkKey: nil)
        result.peerKeys.longTermKey = SMPKey(Array(1...16))
        result.peerKeys.ediv = 0x1234
        result.peerKeys.rand = 0x0102030405060708
        result.peerKeys.identityResolvingKey = SMPKey(Array(0x20..<0x30))
        result.peerKeys.identityAddress = SMPAddress(BluetoothAddress(0x00, 0x1B, 0xDC, 1, 2, 3), isRandom: false)
        result.localKeys.longTermKey = SMPKey(Array(0x81...0x90))
        result.localKeys.ediv = 0x7777
        result.localKeys.rand = 42
        func info(_ role: ConnectionRole) -> ConnectionInfo {
            ConnectionInfo(handle: 1, role: role, peerAddress: UserlandSecurityTests.peer, peerAddressType: .random,
                           ownAddressType: .random, connectionInterval: 24, peripheralLatency: 0, supervisionTimeout: 500)
        }
        let central = try #require(UserlandSecurity.keys(of: result, info(.central)))
        #expect(central.longTermKey == Array(1...10) + Array(repeating: 0, count: 6), "masked to the key size")
        #expect(central.encryptedDiversifier == 0x1234 && central.random == 0x0102030405060708)
        #expect(central.identityAddress == BluetoothAddress(0x00, 0x1B, 0xDC, 1, 2, 3) && central.identityAddressType == .public)
        #expect(central.identityResolvingKey == Array(0x20..<0x30) && central.isAuthenticated && !central.isSecureConnections)
        let peripheral = try #require(UserlandSecurity.keys(of: result, info(.peripheral)))
        #expect(peripheral.role == .peripheral && peripheral.encryptedDiversifier == 0x7777 && peripheral.random == 42)
        #expect(peripheral.longTermKey == Array(0x81...0x8A) + Array(repeating: 0, count: 6))
        result.bonded = false
        #expect(UserlandSecurity.keys(of: result, info(.central)) == nil, "no bonding, nothing to keep")
    }

    @Test("both CSRKs of a pairing reach the keys the managers store: the peer's to verify, ours to sign")
    func bothSignatureKeysAreKept() throws {
        var result = PairingResult(securityLevel: .authenticated, secureConnections: true, associationModel: .numericComparison,
                                   keySize: 16, bonded: true, longTermKey: SMPKey(Array(1...16)), localKeys: DistributedKeys(),
                                   peerKeys: DistributedKeys(), linkKey: nil)
        result.peerKeys.signatureKey = SMPKey(Array(0x40..<0x50))
        result.localKeys.signatureKey = SMPKey(Array(0x60..<0x70))
        let info = ConnectionInfo(handle: 1, role: .central, peerAddress: UserlandSecurityTests.peer, peerAddressType: .random,
                                  ownAddressType: .random, connectionInterval: 24, peripheralLatency: 0, supervisionTimeout: 500)
        let keys = try #require(UserlandSecurity.keys(of: result, info))
        #expect(keys.signatureKey == Array(0x40..<0x50))
        #expect(keys.localSignatureKey == Array(0x60..<0x70))
        #expect(!keys.description.contains(hexString(Array(0x60..<0x70))), "no key in the description")
    }

    @Test("peripheral: a bonded central's LTK request with the stored EDIV and Rand is answered from the keeper; others negatively")
    func longTermKeyRequestAnsweredFromTheBond() {
        let keeper = RecordingKeeper()
        let central = BluetoothAddress(0xC2, 9, 9, 9, 9, 9)
        keeper.state.withLock {
            $0.bonds[central] = PairingKeys(role: .peripheral, peerAddress: central, peerAddressType: .random,
                                            longTermKey: Array(0x31...0x40), encryptedDiversifier: 0xBEEF, random: 77,
                                            isSecureConnections: false)
        }
        var harness = Self.harness(keeper)
        let handle: UInt16 = 0x0041
        harness.receive(H4Packet.connectionComplete(handle: handle, role: 0x01, peer: central))
        func request(ediv: UInt16, rand: UInt64) -> [UInt8] {
            H4Packet.event(0x3E, [0x05, UInt8(handle & 0xFF), UInt8(handle >> 8)]
                           + (0..<8).map { UInt8(truncatingIfNeeded: rand >> (8 * $0)) }
                           + [UInt8(ediv & 0xFF), UInt8(ediv >> 8)])
        }
        func lastCommand() -> [UInt8]? { harness.commands.last }
        harness.receive(request(ediv: 0xBEEF, rand: 77))
        let reply = lastCommand()
        #expect(reply.map { UInt16($0[1]) | UInt16($0[2]) << 8 } == LELongTermKeyRequestReply.opcode.rawValue)
        #expect(reply.map { Array($0.suffix(16)) } == Array(0x31...0x40))
        harness.receive(H4Packet.commandComplete(LELongTermKeyRequestReply.opcode.rawValue, [0x00, UInt8(handle & 0xFF), UInt8(handle >> 8)]))
        harness.receive(request(ediv: 0xBEEF, rand: 78))
        #expect(lastCommand().map { UInt16($0[1]) | UInt16($0[2]) << 8 } == LELongTermKeyRequestNegativeReply.opcode.rawValue,
                "a Rand the bond does not have is refused")
    }

    @Test("central: encrypting with a bond sends LE Enable Encryption with its EDIV, Rand and key and no SMP; 0x06 fails it")
    func encryptWithBond() async {
        let keeper = RecordingKeeper()
        var harness = Self.harness(keeper)
        let bond = PairingKeys(role: .central, peerAddress: UserlandSecurityTests.peer, peerAddressType: .random,
                               longTermKey: Array(0x51...0x60), encryptedDiversifier: 0x0A0B, random: 0x1122334455667788,
                               isSecureConnections: false)
        let succeeded = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, AttuneError>, Never>) in
            harness.security.encrypt(UserlandSecurityTests.handle, with: bond, waiter: continuation, host: &harness.host,
                                     out: &harness.out, nextID: &harness.nextID, at: harness.now)
            harness.pump()
            harness.receive(H4Packet.commandStatus(LEEnableEncryption.opcode.rawValue))
            harness.receive(UserlandSecurityTests.Harness.encryptionChange(status: 0, enabled: 1))
            harness.security.stopped(.transportClosed("the test ended"))
        }
        #expect(throws: Never.self) { try succeeded.get() }
        let command = harness.lastEnableEncryption
        #expect(command.map { Array($0[6..<14]) } == [0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11], "Rand")
        #expect(command.map { Array($0[14..<16]) } == [0x0B, 0x0A], "EDIV")
        #expect(command.map { Array($0[16...]) } == Array(0x51...0x60))
        #expect(harness.smpSent.isEmpty, "nothing pairs")
        #expect(harness.host.isEncrypted(UserlandSecurityTests.handle) == true)

        let refused = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, AttuneError>, Never>) in
            harness.security.encrypt(UserlandSecurityTests.handle, with: bond, waiter: continuation, host: &harness.host,
                                     out: &harness.out, nextID: &harness.nextID, at: harness.now)
            harness.pump()
            harness.receive(H4Packet.commandStatus(LEEnableEncryption.opcode.rawValue))
            harness.receive(UserlandSecurityTests.Harness.encryptionChange(status: 0x06, enabled: 0))
            harness.security.stopped(.transportClosed("the test ended"))
        }
        guard case .failure(.securityFailed(let why)) = refused else {
            Issue.record("\(refused)")
            return
        }
        #expect(why.contains("0x06"), "\(why)")
    }

    @Test("a bonded peripheral's Security Request is answered by encrypting with the bond, not by pairing; MITM the bond lacks pairs")
    func securityRequestUsesTheBond() {
        let keeper = RecordingKeeper()
        keeper.state.withLock {
            $0.bonds[UserlandSecurityTests.peer] = PairingKeys(role: .central, peerAddress: UserlandSecurityTests.peer,
                                                               peerAddressType: .random, longTermKey: Array(0x61...0x70))
        }
        var harness = Self.harness(keeper)
        harness.peerAnswers = false
        harness.receive(UserlandSecurityTests.Harness.smpACL([0x0B, 0x09]))  // Bonding | SC
        #expect(harness.smpSent.isEmpty, "no Pairing Request")
        #expect(harness.lastEnableEncryption.map { Array($0[16...]) } == Array(0x61...0x70), "encrypted with the bond")
        harness.receive(H4Packet.commandStatus(LEEnableEncryption.opcode.rawValue))
        harness.receive(UserlandSecurityTests.Harness.encryptionChange(status: 0, enabled: 1))
        #expect(harness.host.isEncrypted(UserlandSecurityTests.handle) == true)
        let encryptions = harness.commands.filter { UInt16($0[1]) | UInt16($0[2]) << 8 == LEEnableEncryption.opcode.rawValue }.count
        harness.receive(UserlandSecurityTests.Harness.smpACL([0x0B, 0x09]))
        #expect(harness.commands.filter { UInt16($0[1]) | UInt16($0[2]) << 8 == LEEnableEncryption.opcode.rawValue }.count
                == encryptions, "an encrypted link is not encrypted again")
        harness.receive(UserlandSecurityTests.Harness.smpACL([0x0B, 0x0D]))  // Bonding | MITM | SC
        #expect(harness.smpSent.first?.first == 0x01, "MITM asked of an unauthenticated bond: pairing again")
    }

    @Test("after the peer refused the bond (0x06), raising security pairs again from the start and the new keys reach the keeper")
    func refusedBondFallsBackToPairing() async throws {
        let keeper = RecordingKeeper()
        var harness = Self.harness(keeper)
        let bond = PairingKeys(role: .central, peerAddress: UserlandSecurityTests.peer, peerAddressType: .random,
                               longTermKey: Array(0x51...0x60))
        _ = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, AttuneError>, Never>) in
            harness.security.encrypt(UserlandSecurityTests.handle, with: bond, waiter: continuation, host: &harness.host,
                                     out: &harness.out, nextID: &harness.nextID, at: harness.now)
            harness.pump()
            harness.receive(H4Packet.commandStatus(LEEnableEncryption.opcode.rawValue))
            harness.receive(UserlandSecurityTests.Harness.encryptionChange(status: 0x06, enabled: 0))
        }
        #expect(harness.smpSent.isEmpty)
        let ltk = try #require(await Self.pair(&harness))
        #expect(harness.smpSent.first?.first == 0x01, "a Pairing Request follows the refused bond")
        #expect(keeper.state.withLock { $0.paired.map(\.longTermKey) } == [ltk], "the new keys replace the old bond")
    }

    @Test("captures: the keys SMP distributes over ACL are zeroed in both directions; other SMP PDUs and continuations are kept")
    func distributedKeysMasked() {
        for code: UInt8 in [0x06, 0x08, 0x0A] {
            let packet = UserlandSecurityTests.Harness.smpACL([code] + Array(1...16))
            let masked = H4KeyMask.masked(packet)
            #expect(Array(masked.prefix(10)) == Array(packet.prefix(10)))
            #expect(masked.suffix(16).allSatisfy { $0 == 0 }, "code \(code)")
        }
        let random = UserlandSecurityTests.Harness.smpACL([0x04] + Array(1...16))
        #expect(H4KeyMask.masked(random) == random, "Pairing Random is no long-term key")
        var continuation = UserlandSecurityTests.Harness.smpACL([0x06] + Array(1...16))
        continuation[2] = (continuation[2] & 0x0F) | 0x10
        #expect(H4KeyMask.masked(continuation) == continuation, "a continuation fragment has no L2CAP header")
        #expect(H4KeyMask.masked([0x02, 0x40, 0x20, 0x05]) == [0x02, 0x40, 0x20, 0x05], "short ACL left alone")
    }

    @Test("resolvable private addresses resolve with ah: the spec's sample (Vol 3 Part H D.7) and nothing else")
    func resolvesPrivateAddresses() {
        let irk: [UInt8] = Array([0xec, 0x02, 0x34, 0xa3, 0x57, 0xc8, 0xad, 0x05, 0x34, 0x10, 0x10, 0xa6, 0x0a, 0x39, 0x7d, 0x9b].reversed())
        let address = BluetoothAddress(0x70, 0x81, 0x94, 0x0D, 0xFB, 0xAA)
        #expect(ResolvablePrivateAddress.isResolvable(address, type: .random))
        #expect(!ResolvablePrivateAddress.isResolvable(address, type: .public))
        #expect(ResolvablePrivateAddress.resolves(address, with: irk))
        #expect(!ResolvablePrivateAddress.resolves(BluetoothAddress(0x70, 0x81, 0x94, 0x0D, 0xFB, 0xAB), with: irk))
        #expect(!ResolvablePrivateAddress.resolves(address, with: [1, 2, 3]), "a malformed IRK resolves nothing")
    }
}

extension UserlandSecurityTests.Harness {
}
