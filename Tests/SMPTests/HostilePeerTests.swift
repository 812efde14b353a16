import Testing
import BluetoothCore
import BluetoothCrypto
@testable import SMP

/// A peer that lies, repeats itself or goes silent: each case gets the right Pairing Failed
/// reason or the timeout, never a crash and never an encryption request.
@Suite struct HostilePeerTests {
    static let scRequest = SMPPDU.pairingRequest(PairingRequest(PairingFeatures(
        ioCapability: .noInputNoOutput, authenticationRequirements: [.bonding, .secureConnections],
        initiatorKeyDistribution: [.idKey], responderKeyDistribution: [.idKey]))).encoded
    static let scResponse = SMPPDU.pairingResponse(PairingResponse(PairingFeatures(
        ioCapability: .noInputNoOutput, authenticationRequirements: [.bonding, .secureConnections],
        initiatorKeyDistribution: [], responderKeyDistribution: []))).encoded

    /// The spec's sample point B with y + 1: not on P-256.
    static var offCurveKey: [UInt8] {
        let x = le("1ea1f0f01faf1d9609592284f19e4c0047b58afd8615a69f559077b22faaa190")
        let y = le("4c55f33e429dad377356703a9ab85160472d1130e28e36765f89aff915b1214b")
        return [0x0C] + x + y
    }

    static func responder(_ configuration: SMPConfiguration = SMPConfiguration()) -> SecurityManager {
        SecurityManager(role: .responder, configuration: configuration, localAddress: peripheralAddress,
                        peerAddress: centralAddress, random: SeededRandom(state: 5))
    }

    static func initiator(_ configuration: SMPConfiguration = SMPConfiguration()) -> SecurityManager {
        SecurityManager(role: .initiator, configuration: configuration, localAddress: centralAddress,
                        peerAddress: peripheralAddress, random: SeededRandom(state: 6))
    }

    static func feed(_ manager: inout SecurityManager, _ bytes: [UInt8], at seconds: Double = 0) -> SecurityManagerOutput {
        var out = SecurityManagerOutput()
        manager.receive(bytes[...], at: .seconds(seconds), into: &out)
        return out
    }

    static func noEncryption(_ out: SecurityManagerOutput, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!out.events.contains { if case .startEncryption = $0 { true } else if case .longTermKeyReply = $0 { true } else { false } },
                sourceLocation: sourceLocation)
    }

    /// After a failure the responder has no key for the controller.
    static func expectNoKey(_ manager: inout SecurityManager, sourceLocation: SourceLocation = #_sourceLocation) {
        var out = SecurityManagerOutput()
        manager.longTermKeyRequested(ediv: 0, rand: 0, at: .zero, into: &out)
        #expect(out.events == [.longTermKeyNegativeReply], sourceLocation: sourceLocation)
    }

    // MARK: - Public keys

    @Test func offCurvePublicKeyToTheResponder() {
        var r = Self.responder()
        let response = Self.feed(&r, Self.scRequest)
        #expect(response.sentPDUs.first?.first == 0x02)
        let out = Self.feed(&r, Self.offCurveKey)
        // Refused before ECDH and before our own key goes out.
        #expect(out.sentPDUs == [[0x05, 0x0B]])
        #expect(out.events == [.failed(.local(.dhKeyCheckFailed))])
        Self.noEncryption(out)
        Self.expectNoKey(&r)
    }

    @Test func offCurvePublicKeyToTheInitiator() {
        var i = Self.initiator()
        var out = SecurityManagerOutput()
        i.start(at: .zero, into: &out)
        let key = Self.feed(&i, Self.scResponse)
        #expect(key.sentPDUs.first?.first == 0x0C)
        let failed = Self.feed(&i, Self.offCurveKey)
        #expect(failed.sentPDUs == [[0x05, 0x0B]])
        #expect(failed.events == [.failed(.local(.dhKeyCheckFailed))])
        Self.noEncryption(failed)
        // Whatever the peer sends next is unexpected, never a key.
        let later = Self.feed(&i, [0x03] + [UInt8](repeating: 0, count: 16))
        #expect(later.sentPDUs == [[0x05, 0x08]])
        Self.noEncryption(later)
    }

    @Test func pointAtOriginAndOversizedCoordinatesAreRefused() {
        for key in [[0x0C] + [UInt8](repeating: 0, count: 64), [0x0C] + [UInt8](repeating: 0xFF, count: 64)] {
            var r = Self.responder()
            _ = Self.feed(&r, Self.scRequest)
            let out = Self.feed(&r, key)
            #expect(out.sentPDUs == [[0x05, 0x0B]])
        }
    }

    @Test func ourOwnPublicKeyReflectedIsRefused() {
        var i = Self.initiator()
        var out = SecurityManagerOutput()
        i.start(at: .zero, into: &out)
        let ours = Self.feed(&i, Self.scResponse).sentPDUs[0]
        let failed = Self.feed(&i, ours)
        #expect(failed.sentPDUs == [[0x05, 0x0B]])
        Self.noEncryption(failed)
    }

    // MARK: - Confirm values

    @Test(arguments: [true, false])
    func wrongConfirmValueFromTheResponder(secureConnections: Bool) {
        let c = SMPConfiguration(secureConnections: secureConnections)
        var h = PairingHarness(central: c, peripheral: SMPConfiguration())
        h.tamper = { side, pdu in
            guard side == .peripheral, pdu.first == 0x03 else { return pdu }
            var p = pdu
            p[1] ^= 0x01
            return p
        }
        h.pair()
        #expect(h.failure(.central) == .local(.confirmValueFailed))
        #expect(h.failure(.peripheral) == .remote(.confirmValueFailed))
        #expect(!h.encryptionRequested)
        #expect(h.encryptions.isEmpty)
    }

    @Test func wrongConfirmValueFromTheInitiator() {
        // Legacy: the responder checks Mconfirm when Mrand arrives.
        var h = PairingHarness(central: SMPConfiguration(secureConnections: false), peripheral: SMPConfiguration())
        h.tamper = { side, pdu in
            guard side == .central, pdu.first == 0x03 else { return pdu }
            var p = pdu
            p[16] ^= 0x80
            return p
        }
        h.pair()
        #expect(h.failure(.peripheral) == .local(.confirmValueFailed))
        #expect(!h.encryptionRequested)
    }

    @Test func wrongDHKeyCheck() {
        var h = PairingHarness(central: SMPConfiguration(), peripheral: SMPConfiguration())
        h.tamper = { side, pdu in
            guard side == .central, pdu.first == 0x0D else { return pdu }
            var p = pdu
            p[5] ^= 0x10
            return p
        }
        h.pair()
        #expect(h.failure(.peripheral) == .local(.dhKeyCheckFailed))
        #expect(h.failure(.central) == .remote(.dhKeyCheckFailed))
        #expect(!h.encryptionRequested)
    }

    // MARK: - Key size

    @Test func keySizeSixIsRefusedWithEncryptionKeySize() {
        var request = PairingFeatures(ioCapability: .noInputNoOutput, authenticationRequirements: [.bonding],
                                      maximumEncryptionKeySize: 6, initiatorKeyDistribution: [], responderKeyDistribution: [])
        var r = Self.responder(SMPConfiguration(minimumKeySize: 7))
        var out = Self.feed(&r, SMPPDU.pairingRequest(PairingRequest(request)).encoded)
        #expect(out.sentPDUs == [[0x05, 0x06]])
        #expect(out.events == [.failed(.local(.encryptionKeySize))])

        // As initiator, a response offering 6.
        var i = Self.initiator(SMPConfiguration(minimumKeySize: 7))
        out = SecurityManagerOutput()
        i.start(at: .zero, into: &out)
        request.maximumEncryptionKeySize = 6
        out = Self.feed(&i, SMPPDU.pairingResponse(PairingResponse(request)).encoded)
        #expect(out.sentPDUs == [[0x05, 0x06]])
        Self.noEncryption(out)

        // The default minimum is 16: a peer offering 15 is refused too.
        var strict = Self.responder()
        request.maximumEncryptionKeySize = 15
        out = Self.feed(&strict, SMPPDU.pairingRequest(PairingRequest(request)).encoded)
        #expect(out.sentPDUs == [[0x05, 0x06]])
    }

    @Test func minimumKeySizeIsNeverBelowSeven() {
        #expect(SMPConfiguration(minimumKeySize: 3).minimumKeySize == 7)
        var c = SMPConfiguration()
        c.minimumKeySize = 1
        #expect(c.minimumKeySize == 7)
        #expect(SMPConfiguration(minimumKeySize: 40).minimumKeySize == 16)
    }

    @Test func reservedValuesAreInvalidParameters() {
        for bytes: [UInt8] in [[0x01, 0x07, 0, 0x09, 16, 0, 0],    // IO capability 7
                               [0x01, 0x03, 0x02, 0x09, 16, 0, 0], // OOB flag 2
                               [0x01, 0x03, 0, 0x09, 17, 0, 0]] {  // key size 17
            var r = Self.responder()
            #expect(Self.feed(&r, bytes).sentPDUs == [[0x05, 0x0A]])
        }
    }

    // MARK: - Out-of-order and repeated PDUs

    @Test func repeatedPairingRequestMidPairing() {
        var r = Self.responder()
        _ = Self.feed(&r, Self.scRequest)
        let out = Self.feed(&r, Self.scRequest)
        #expect(out.sentPDUs == [[0x05, 0x08]])
        #expect(out.events == [.failed(.local(.unspecifiedReason))])
        #expect(!r.isPairing)
        Self.expectNoKey(&r)
    }

    @Test func repeatedPairingRequestAfterPublicKeys() {
        // Mid Secure Connections pairing, after the keys are exchanged.
        var h = PairingHarness(central: SMPConfiguration(), peripheral: SMPConfiguration())
        h.tamper = { side, pdu in
            // The central's Pairing Random is replaced by a second Pairing Request.
            side == .central && pdu.first == 0x04 ? HostilePeerTests.scRequest : pdu
        }
        h.pair()
        #expect(h.failure(.peripheral) == .local(.unspecifiedReason))
        #expect(!h.encryptionRequested)
    }

    @Test func pairingRequestToTheCentralAndSecurityRequestToThePeripheral() {
        var i = Self.initiator()
        #expect(Self.feed(&i, Self.scRequest).sentPDUs == [[0x05, 0x07]])
        var r = Self.responder()
        #expect(Self.feed(&r, [0x0B, 0x01]).sentPDUs == [[0x05, 0x07]])
    }

    @Test func unknownCodesWrongLengthsAndStrayPDUs() {
        var r = Self.responder()
        #expect(Self.feed(&r, [0x0F, 0x00]).sentPDUs == [[0x05, 0x07]])   // unknown code: Command Not Supported
        #expect(Self.feed(&r, [0x01, 0x03, 0x00]).sentPDUs == [[0x05, 0x0A]])   // short: Invalid Parameters
        #expect(Self.feed(&r, []).sentPDUs.isEmpty)
        #expect(Self.feed(&r, [0x04] + [UInt8](repeating: 1, count: 16)).sentPDUs == [[0x05, 0x08]])   // a random out of the blue
        #expect(Self.feed(&r, [0x06] + [UInt8](repeating: 1, count: 16)).sentPDUs == [[0x05, 0x08]])   // a key before encryption
        #expect(Self.feed(&r, [0x0E, 0x01]).sentPDUs == [[0x05, 0x08]])   // keypress outside Passkey Entry
        // A Pairing Failed when nothing runs is not answered.
        #expect(Self.feed(&r, [0x05, 0x08]).sentPDUs.isEmpty)
    }

    @Test func keysBeforeEncryptionAreRefused() {
        var h = PairingHarness(central: SMPConfiguration(secureConnections: false), peripheral: SMPConfiguration())
        // Stop at the central's STK request: the link layer never encrypts.
        var out = SecurityManagerOutput()
        h.central.start(at: .zero, into: &out)
        var toPeripheral = out.sentPDUs
        var toCentral: [[UInt8]] = []
        var sawEncrypt = false
        for _ in 0..<10 {
            for pdu in toPeripheral { out = SecurityManagerOutput(); h.peripheral.receive(pdu[...], at: .zero, into: &out); toCentral += out.sentPDUs }
            toPeripheral = []
            for pdu in toCentral {
                out = SecurityManagerOutput(); h.central.receive(pdu[...], at: .zero, into: &out); toPeripheral += out.sentPDUs
                if out.events.contains(where: { if case .startEncryption = $0 { true } else { false } }) { sawEncrypt = true }
            }
            toCentral = []
        }
        #expect(sawEncrypt)
        // A key distribution PDU on the unencrypted link is refused.
        let refused = Self.feed(&h.central, [0x06] + [UInt8](repeating: 7, count: 16))
        #expect(refused.sentPDUs == [[0x05, 0x08]])
        // And a late Encryption Change no longer starts key distribution.
        var late = SecurityManagerOutput()
        h.central.encryptionChanged(at: .zero, into: &late)
        #expect(late.sentPDUs.isEmpty && late.events.isEmpty)
    }

    // MARK: - Timeout

    @Test func aSilentPeerTimesOutAtThirtySecondsAndSMPStaysClosed() {
        var i = Self.initiator()
        var out = SecurityManagerOutput()
        i.start(at: .seconds(100), into: &out)
        #expect(i.deadline == .seconds(130))
        out.removeAll()
        i.tick(at: .seconds(129.999), into: &out)
        #expect(out.events.isEmpty)
        i.tick(at: .seconds(130), into: &out)
        #expect(out.events == [.failed(.timeout)])
        #expect(out.sentPDUs.isEmpty)   // no Pairing Failed after a timeout
        #expect(i.isClosed && i.deadline == nil)
        // Everything is refused until a new link.
        out.removeAll()
        i.receive(Self.scResponse[...], at: .seconds(131), into: &out)
        i.start(at: .seconds(132), into: &out)
        i.answer(.passkey(1), at: .seconds(133), into: &out)
        i.encryptionChanged(at: .seconds(134), into: &out)
        i.tick(at: .seconds(500), into: &out)
        #expect(out.sentPDUs.isEmpty && out.events.isEmpty)
    }

    @Test func theTimerRestartsWithEveryPDUAndAPeerThatStopsMidwayTimesOut() {
        var r = Self.responder()
        var out = Self.feed(&r, Self.scRequest, at: 10)
        #expect(r.deadline == .seconds(40))
        // The public key arrives at 35 s: the timer restarts.
        var seeded = SeededRandom(state: 9)
        guard let pair = try? seeded.makeKeyPair() else { Issue.record("no key pair"); return }
        let key = SMPPDU.pairingPublicKey(PairingPublicKey(x: pair.publicKey.x.reversed(), y: pair.publicKey.y.reversed()))
        out = Self.feed(&r, key.encoded, at: 35)
        #expect(out.sentPDUs.map { $0.first } == [0x0C, 0x03])
        #expect(r.deadline == .seconds(65))
        // Then the peer goes silent; a late PDU after the deadline finds SMP closed.
        out = Self.feed(&r, [0x04] + [UInt8](repeating: 0, count: 16), at: 65)
        #expect(out.events == [.failed(.timeout)])
        #expect(out.sentPDUs.isEmpty)
        Self.noEncryption(out)
        #expect(Self.feed(&r, Self.scRequest, at: 70).sentPDUs.isEmpty)
    }

    @Test func anUnansweredSecurityRequestTimesOut() {
        var r = Self.responder()
        var out = SecurityManagerOutput()
        r.start(at: .zero, into: &out)
        #expect(out.sentPDUs == [[0x0B, 0x29]])
        out.removeAll()
        r.tick(at: .seconds(30), into: &out)
        #expect(out.events == [.failed(.timeout)])
        #expect(r.isClosed)
    }

    @Test func aSecurityRequestAnsweredByEncryptionWithABondStopsTheTimer() {
        var r = Self.responder()
        var out = SecurityManagerOutput()
        r.start(at: .zero, into: &out)
        r.encryptionChanged(at: .seconds(1), into: &out)
        #expect(r.deadline == nil)
        r.tick(at: .seconds(60), into: &out)
        #expect(!r.isClosed)
    }

    @Test func aRemotePairingFailedEndsThePairingQuietly() {
        var r = Self.responder()
        _ = Self.feed(&r, Self.scRequest)
        let out = Self.feed(&r, [0x05, 0x0C])
        #expect(out.sentPDUs.isEmpty)
        #expect(out.events == [.failed(.remote(.numericComparisonFailed))])
        #expect(!r.isPairing && r.deadline == nil)
    }
}
