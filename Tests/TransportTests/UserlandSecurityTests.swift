import ControllerTestSupport
import HCI
import SMP
import Testing
@testable import Transport

/// The userland host's Security Manager wiring (``UserlandSecurity``) over a sans-I/O
/// ``HCIHost``, with the controller played here and the peer played by an SMP responder:
/// pairing, encryption, and every way it can fail, each with the error the caller sees.
@Suite("Userland host: pairing and encryption through the Security Manager")
struct UserlandSecurityTests {
    static let ours = BluetoothAddress(0xC1, 0x11, 0x22, 0x33, 0x44, 0x55)
    static let peer = BluetoothAddress(0xF0, 0xA7, 0x7E, 0x00, 0x00, 0x01)
    /// What the scripted controller answers to Read BD_ADDR (``ControllerInitAnswers``).
    static let ourPublic = BluetoothAddress(0x01, 0x02, 0x03, 0x04, 0x05, 0x06)
    static let handle: UInt16 = 0x0040

    /// The host, its security, the controller's answers and the peer's Security Manager.
    struct Harness {
        var host = HCIHost(configuration: HostConfiguration(randomAddress: UserlandSecurityTests.ours, pairingEnabled: true))
        var out = HostOutput()
        var nextID: UInt64 = 1_000
        var security = UserlandSecurity(configuration: SMPConfiguration())
        var now = MonotonicTime.seconds(100)
        /// The peer (Bumble's role in the interop test): a responder that accepts Just Works.
        var peer = SecurityManager(role: .responder, localAddress: SMPAddress(UserlandSecurityTests.peer, isRandom: true),
                                   peerAddress: SMPAddress(UserlandSecurityTests.ours, isRandom: true))
        var peerOut = SecurityManagerOutput()
        /// The peer answers SMP by itself (false: the test does it).
        var peerAnswers = true
        /// The peer completed key distribution.
        var peerPaired = false
        /// Commands the host sent (indicator first), and SMP PDUs it sent, in order.
        var commands: [[UInt8]] = []
        var smpSent: [[UInt8]] = []
        var pending: [UInt8] = []
        var pendingLength = 0

        /// - Parameter prefersPublicAddress: our host takes the scripted controller's public
        ///   address (``UserlandSecurityTests/ourPublic``) as its own, as ``UserlandController`` does.
        init(prefersPublicAddress: Bool = false) {
            if prefersPublicAddress {
                host = HCIHost(configuration: HostConfiguration(randomAddress: UserlandSecurityTests.ours, pairingEnabled: true,
                                                                prefersPublicAddress: true))
                peer = SecurityManager(role: .responder, localAddress: SMPAddress(UserlandSecurityTests.peer, isRandom: true),
                                       peerAddress: SMPAddress(UserlandSecurityTests.ourPublic, isRandom: false))
            }
            host.start(at: now, into: &out)
            pump()
            receive(H4Packet.connectionComplete(handle: UserlandSecurityTests.handle, peer: UserlandSecurityTests.peer))
        }

        /// Carries out the host's output as UserlandHost does: events and completions to
        /// the security layer, packets to the controller, until nothing more comes.
        mutating func pump() {
            var rounds = 0
            while !out.isEmpty, rounds < 200 {
                rounds += 1
                let packets = out.packets.map { Array(out.bytes(of: $0)) }
                let events = out.events, completions = out.completions
                out.removeAll()
                for event in events { security.handle(event, host: &host, out: &out, nextID: &nextID, at: now) }
                for completion in completions {
                    _ = security.completed(completion.id, completion.result, host: &host, out: &out, nextID: &nextID, at: now)
                }
                for packet in packets { controllerReceives(packet) }
            }
        }

        /// The controller's side: init commands answered, ACL credited back and its SMP
        /// handed to the peer; LE Enable Encryption left to the test.
        mutating func controllerReceives(_ packet: [UInt8]) {
            if packet.first == 0x01 {
                commands.append(packet)
                if !host.isReady, let complete = ControllerInitAnswers.commandComplete(answering: packet) {
                    host.receive(complete, at: now, into: &out)
                }
                return
            }
            guard packet.first == 0x02, packet.count >= 5 else { return }
            host.receive(H4Packet.completedPackets(handle: UserlandSecurityTests.handle), at: now, into: &out)
            let boundary = (packet[2] >> 4) & 0x3
            let data = Array(packet[5...])
            if boundary != 0b01 {
                pending = data
                pendingLength = data.count >= 2 ? Int(data[0]) | Int(data[1]) << 8 : 0
            } else {
                pending += data
            }
            guard pending.count >= 4, pending.count == pendingLength + 4, pending[2] == 0x06 else { return }
            let pdu = Array(pending[4...])
            smpSent.append(pdu)
            guard peerAnswers else { return }
            peerOut.removeAll()
            peer.receive(pdu[...], at: now, into: &peerOut)
            deliverPeerOutput()
        }

        /// Sends the peer's PDUs to the host; answers its LTK replies as a controller would.
        mutating func deliverPeerOutput() {
            if peerOut.events.contains(where: { if case .paired = $0 { true } else { false } }) { peerPaired = true }
            for pdu in peerOut.sentPDUs { receive(Self.smpACL(pdu)) }
        }

        mutating func receive(_ packet: [UInt8]) {
            host.receive(packet, at: now, into: &out)
            pump()
        }

        mutating func advance(_ duration: Duration) {
            now = now + duration
            host.tick(at: now, into: &out)
            security.tick(host: &host, out: &out, nextID: &nextID, at: now)
            pump()
        }

        /// Starts raising security and returns what the waiter got, once the test's
        /// `then` (the controller's and the peer's further answers) has run.
        mutating func raise(then: (inout Harness) -> Void) async -> Result<Void, AttuneError> {
            await withCheckedContinuation { continuation in
                security.raise(UserlandSecurityTests.handle, waiter: continuation, host: &host, out: &out,
                               nextID: &nextID, at: now)
                pump()
                then(&self)
                // A step the test expected and did not see must fail the waiter, not hang it.
                security.stopped(.transportClosed("the test ended"))
            }
        }

        var lastEnableEncryption: [UInt8]? {
            commands.last { $0.count >= 3 && UInt16($0[1]) | UInt16($0[2]) << 8 == LEEnableEncryption.opcode.rawValue }
        }

        static func smpACL(_ pdu: [UInt8]) -> [UInt8] {
            let l2cap = UInt16(pdu.count), length = l2cap + 4, flagged = UserlandSecurityTests.handle | 0x2000
            return [0x02, UInt8(flagged & 0xFF), UInt8(flagged >> 8), UInt8(length & 0xFF), UInt8(length >> 8),
                    UInt8(l2cap & 0xFF), UInt8(l2cap >> 8), 0x06, 0x00] + pdu
        }

        static func encryptionChange(status: UInt8, enabled: UInt8) -> [UInt8] {
            H4Packet.event(0x08, [status, UInt8(UserlandSecurityTests.handle & 0xFF), UInt8(UserlandSecurityTests.handle >> 8), enabled])
        }
    }

    /// The pairing goes as far as our LE Enable Encryption, both sides derive the LTK, and
    /// the controller reports the link encrypted. With `peerDistributes`, the peer then
    /// sees its own encryption and sends its keys (and takes ours).
    static func encrypt(_ h: inout Harness, peerDistributes: Bool) {
        // The pairing got as far as the central's LE Enable Encryption: EDIV and Rand zero.
        guard let command = h.lastEnableEncryption else {
            Issue.record("no LE Enable Encryption; SMP sent: \(h.smpSent)")
            return
        }
        #expect(command.count == 4 + 28)
        #expect(Array(command[6..<16]) == Array(repeating: 0, count: 10), "Rand and EDIV are zero for SC")
        h.receive(H4Packet.commandStatus(LEEnableEncryption.opcode.rawValue))
        // The peer's controller asked its host for the key: the same LTK.
        h.peerOut.removeAll()
        h.peer.longTermKeyRequested(ediv: 0, rand: 0, at: h.now, into: &h.peerOut)
        guard case .longTermKeyReply(let key)? = h.peerOut.events.last else {
            Issue.record("the peer has no key: \(h.peerOut.events)")
            return
        }
        #expect(key.bytes == Array(command[16...]), "both sides derived the same LTK")
        h.receive(Harness.encryptionChange(status: 0, enabled: 1))
        guard peerDistributes else { return }
        h.peerOut.removeAll()
        h.peer.encryptionChanged(at: h.now, into: &h.peerOut)
        h.deliverPeerOutput()
    }

    @Test("raiseSecurity pairs Secure Connections Just Works, starts encryption with the LTK and succeeds on Encryption Change")
    func pairsAndEncrypts() async {
        var harness = Harness()
        let result = await harness.raise { h in Self.encrypt(&h, peerDistributes: true) }
        #expect(throws: Never.self) { try result.get() }
        #expect(harness.smpSent.first?.first == 0x01, "Pairing Request first")
        // IO NoInputNoOutput (0x03), no OOB, AuthReq Bonding | SC | CT2 (0x29).
        #expect(harness.smpSent.first.map { Array($0.prefix(4)) } == [0x01, 0x03, 0x00, 0x29])
        #expect(harness.smpSent.contains { $0.first == 0x0D }, "DHKey Check sent")
        #expect(harness.host.isEncrypted(Self.handle) == true)
        #expect(harness.peerPaired, "key distribution completed on the peer's side")
    }

    /// Ending the link as soon as it is encrypted left the peer waiting for our keys, with
    /// no bond on either side (Bumble's legacy Passkey Entry case under load): the waiter
    /// goes on only when the keys are distributed. Here the peer withholds its keys, so the
    /// waiter is still waiting when the test ends (which fails it); then, with the keys,
    /// it succeeds, after our own keys went out.
    @Test("raiseSecurity returns after key distribution, not at Encryption Change")
    func waitsForKeyDistribution() async {
        var withheld = Harness()
        let early = await withheld.raise { h in Self.encrypt(&h, peerDistributes: false) }
        #expect(withheld.host.isEncrypted(Self.handle) == true)
        guard case .failure(let error) = early else {
            Issue.record("raiseSecurity returned before the keys were distributed")
            return
        }
        #expect("\(error)".contains("the test ended"), "\(error)")
        var harness = Harness()
        var sentBeforePeerKeys = 0
        let result = await harness.raise { h in
            Self.encrypt(&h, peerDistributes: false)
            sentBeforePeerKeys = h.smpSent.count
            h.peerOut.removeAll()
            h.peer.encryptionChanged(at: h.now, into: &h.peerOut)
            h.deliverPeerOutput()
        }
        #expect(throws: Never.self) { try result.get() }
        #expect(harness.peerPaired, "the peer has its bond")
        #expect(harness.smpSent.count > sentBeforePeerKeys, "we sent our keys after the peer's")
    }

    @Test("the peer's Pairing Failed fails raiseSecurity with the reason")
    func peerRefuses() async {
        var harness = Harness()
        harness.peerAnswers = false
        let result = await harness.raise { h in
            h.receive(Harness.smpACL([0x05, 0x03]))
        }
        #expect(harness.smpSent.first?.first == 0x01)
        guard case .failure(.securityFailed(let why)) = result else {
            Issue.record("\(result)")
            return
        }
        #expect(why.contains("the peer sent Pairing Failed, reason 0x03 Authentication Requirements"), "\(why)")
    }

    @Test("Encryption Change with an error status fails raiseSecurity with the HCI status")
    func encryptionFails() async {
        var harness = Harness()
        let result = await harness.raise { h in
            guard h.lastEnableEncryption != nil else { return }
            h.receive(H4Packet.commandStatus(LEEnableEncryption.opcode.rawValue))
            h.receive(Harness.encryptionChange(status: 0x06, enabled: 0))
        }
        #expect(harness.lastEnableEncryption != nil)
        guard case .failure(.securityFailed(let why)) = result else {
            Issue.record("\(result)")
            return
        }
        #expect(why.contains("0x06"), "\(why)")
        #expect(harness.host.isEncrypted(Self.handle) == false)
    }

    @Test("a peer that stops answering: after 30 s raiseSecurity fails with the SMP timeout, and the link pairs no more")
    func peerSilent() async {
        var harness = Harness()
        harness.peerAnswers = false
        #expect(harness.security.deadline == nil)
        let result = await harness.raise { h in
            #expect(h.security.deadline == h.now + .seconds(30))
            h.advance(.seconds(29))
            h.advance(.seconds(1))
        }
        guard case .failure(.securityFailed(let why)) = result else {
            Issue.record("\(result)")
            return
        }
        #expect(why.contains("SMP timed out"), "\(why)")
        let again = await harness.raise { _ in }
        guard case .failure(.securityFailed(let second)) = again else {
            Issue.record("\(again)")
            return
        }
        #expect(second.contains("until a new connection"), "\(second)")
    }

    @Test("a peer's Security Request starts pairing by itself")
    func securityRequestStartsPairing() {
        var harness = Harness()
        harness.peerAnswers = false
        harness.receive(Harness.smpACL([0x0B, 0x09]))
        #expect(harness.smpSent.first?.first == 0x01, "Pairing Request sent: \(harness.smpSent)")
    }

    @Test("the link going down fails a waiting raiseSecurity with the reason")
    func disconnectWhilePairing() async {
        var harness = Harness()
        harness.peerAnswers = false
        let result = await harness.raise { h in
            h.receive(H4Packet.event(0x05, [0x00, UInt8(UserlandSecurityTests.handle & 0xFF), UInt8(UserlandSecurityTests.handle >> 8), 0x13]))
        }
        guard case .failure(.peripheralDisconnected) = result else {
            Issue.record("\(result)")
            return
        }
    }

    @Test("hostile SMP bytes from the peer: never a crash, never encryption, every refusal bounded")
    func hostileSMP() {
        var harness = Harness()
        harness.peerAnswers = false
        var seed: UInt64 = 0x5EED_0013
        func next() -> UInt64 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return seed >> 33
        }
        for _ in 0..<2_000 {
            let length = Int(next() % 70)
            var pdu = (0..<length).map { _ in UInt8(truncatingIfNeeded: next()) }
            // Mostly real codes, so the manager's states are reached, not only its decoder.
            if !pdu.isEmpty { pdu[0] = UInt8(next() % 0x10) }
            harness.receive(Harness.smpACL(pdu))
        }
        #expect(harness.lastEnableEncryption == nil, "no encryption without a completed pairing")
        #expect(harness.host.connectionHandles == [Self.handle])
        #expect(harness.smpSent.count <= 2_000, "at most one answer per PDU: \(harness.smpSent.count)")
    }

    @Test("snoop captures carry LE Enable Encryption and LTK Request Reply with the key zeroed")
    func keysMasked() {
        let key = LinkKeyMaterial(Array(1...16))!
        let enable = LEEnableEncryption(connectionHandle: 1, random: 0x0102, encryptedDiversifier: 0x0304, longTermKey: key).h4Frame
        let masked = H4KeyMask.masked(enable)
        #expect(Array(masked.prefix(16)) == Array(enable.prefix(16)), "handle, Rand and EDIV kept")
        #expect(masked.suffix(16).allSatisfy { $0 == 0 })
        let reply = H4KeyMask.masked(LELongTermKeyRequestReply(connectionHandle: 1, longTermKey: key).h4Frame)
        #expect(reply.suffix(16).allSatisfy { $0 == 0 } && reply.count == 22)
        let other = Reset().h4Frame
        #expect(H4KeyMask.masked(other) == other)
        #expect(H4KeyMask.masked([0x01, 0x19, 0x20]) == [0x01, 0x19, 0x20], "a short packet is left alone")
    }
}
