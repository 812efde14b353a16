import ControllerTestSupport
import GATT
import HCI
import SMP
import Synchronization
import Testing
@testable import Transport

/// The pairing agent's plumbing in the userland host: the Security Manager's requests for
/// the user reach the ``PairingAgent`` (or a fixed passkey, or a refusal), the answers go
/// back to the manager, stale answers are dropped, and the link's security afterwards
/// says how it was keyed. The peer is an SMP responder (``UserlandSecurityTests/Harness``).
@Suite("Userland host: the pairing agent")
struct PairingAgentTests {
    typealias Harness = UserlandSecurityTests.Harness
    static let handle = UserlandSecurityTests.handle

    /// Answers the agent gave, as the host would get them: (request ID, answer).
    final class Answers: Sendable {
        let given = Mutex<[(UInt64, SecurityManagerAnswer)]>([])
        var answerer: @Sendable (UInt16, UInt64, SecurityManagerAnswer) -> Void {
            { [self] _, id, answer in given.withLock { $0.append((id, answer)) } }
        }
        func take() -> [(UInt64, SecurityManagerAnswer)] {
            given.withLock { given in
                defer { given = [] }
                return given
            }
        }
    }

    /// A harness whose side and peer pair with these configurations; pairing starts from
    /// the peer's Security Request (no waiter: the test awaits the agent instead).
    static func harness(ours: SMPConfiguration, peer: SMPConfiguration, passkey: UInt32? = nil,
                        agent: PairingAgent? = nil, answers: Answers? = nil) -> Harness {
        var h = Harness()
        var prompts = UserlandPairingPrompts(passkey: passkey, agent: agent)
        prompts.answerer = answers?.answerer
        h.security = UserlandSecurity(configuration: ours, prompts: prompts)
        h.peer = SecurityManager(role: .responder, configuration: peer,
                                 localAddress: SMPAddress(UserlandSecurityTests.peer, isRandom: true),
                                 peerAddress: SMPAddress(UserlandSecurityTests.ours, isRandom: true))
        return h
    }

    /// Feeds the agent's answers back as ``UserlandHost/answerPairing(handle:request:with:)`` does.
    static func deliver(_ answers: Answers, to h: inout Harness) {
        for (id, answer) in answers.take() {
            h.security.answer(handle, request: id, with: answer, host: &h.host, out: &h.out, nextID: &h.nextID, at: h.now)
            h.pump()
        }
    }

    /// Plays the controllers once our side asked for LE Enable Encryption: both derive the
    /// key, the link encrypts, key distribution runs. False when no encryption was asked.
    static func encrypt(_ h: inout Harness) -> Bool {
        guard h.lastEnableEncryption != nil else { return false }
        h.receive(H4Packet.commandStatus(LEEnableEncryption.opcode.rawValue))
        h.peerOut.removeAll()
        h.peer.longTermKeyRequested(ediv: 0, rand: 0, at: h.now, into: &h.peerOut)
        guard case .longTermKeyReply? = h.peerOut.events.last else { return false }
        h.receive(Harness.encryptionChange(status: 0, enabled: 1))
        h.peerOut.removeAll()
        h.peer.encryptionChanged(at: h.now, into: &h.peerOut)
        h.deliverPeerOutput()
        return true
    }

    static let securityRequest: [UInt8] = [0x0B, 0x0D]   // Bonding, MITM, SC

    /// The peer's passkey (it displays); the peer's PDUs so far are kept aside.
    static func peerPasskey(_ h: Harness) -> UInt32? {
        for event in h.peerOut.events { if case .displayPasskey(let value) = event { return value } }
        return nil
    }

    @Test("a fixed passkey answers Passkey Entry without asking anyone; the link is authenticated Secure Connections")
    func fixedPasskey() {
        var h = Self.harness(ours: SMPConfiguration(ioCapability: .keyboardOnly, requiresMITM: true, fixedPasskey: 123_456),
                             peer: SMPConfiguration(ioCapability: .displayOnly, requiresMITM: true, fixedPasskey: 123_456),
                             passkey: 123_456)
        h.receive(Harness.smpACL(Self.securityRequest))
        let encrypted = Self.encrypt(&h)
        #expect(encrypted, "SMP sent: \(h.smpSent.map { $0.first ?? 0 })")
        #expect(h.peerPaired)
        #expect(h.security.linkSecurity(Self.handle) == LinkSecurity(encrypted: true, authenticated: true,
                                                                      secureConnections: true, keySize: 16))
    }

    @Test("a wrong passkey fails with Confirm Value Failed and never encrypts")
    func wrongPasskey() {
        var h = Self.harness(ours: SMPConfiguration(ioCapability: .keyboardOnly, requiresMITM: true),
                             peer: SMPConfiguration(ioCapability: .displayOnly, requiresMITM: true, fixedPasskey: 123_456),
                             passkey: 654_321)
        h.receive(Harness.smpACL(Self.securityRequest))
        #expect(h.lastEnableEncryption == nil)
        #expect(h.smpSent.contains([0x05, 0x04]) || h.peerOut.sentPDUs.contains([0x05, 0x04]),
                "Pairing Failed, Confirm Value Failed: ours \(h.smpSent), peer's \(h.peerOut.sentPDUs)")
        #expect(h.security.linkSecurity(Self.handle) == .none)
    }

    @Test("with no agent and no passkey, Passkey Entry is refused at once (Passkey Entry Failed), never left waiting")
    func noAgentRefuses() {
        var h = Self.harness(ours: SMPConfiguration(ioCapability: .keyboardOnly, requiresMITM: true),
                             peer: SMPConfiguration(ioCapability: .displayOnly, requiresMITM: true))
        h.receive(Harness.smpACL(Self.securityRequest))
        #expect(h.smpSent.last == [0x05, 0x01], "\(h.smpSent)")
        #expect(h.security.deadline == nil, "no timer left running")
    }

    @Test("Passkey Entry through the agent: enterPasskey, then the typed passkey pairs", .timeLimit(.minutes(10)))
    func agentTypesPasskey() async {
        let agent = PairingAgent(), answers = Answers()
        var h = Self.harness(ours: SMPConfiguration(ioCapability: .keyboardOnly, requiresMITM: true),
                             peer: SMPConfiguration(ioCapability: .displayOnly, requiresMITM: true),
                             agent: agent, answers: answers)
        h.receive(Harness.smpACL(Self.securityRequest))
        let shown = Self.peerPasskey(h)
        var requests = agent.makeAsyncIterator()
        let request = await requests.next()
        #expect(request?.kind == .enterPasskey)
        #expect(request?.peerAddress == UserlandSecurityTests.peer)
        #expect(h.lastEnableEncryption == nil, "pairing waits for the answer")
        request?.respond(passkey: shown ?? 0)
        request?.respond(passkey: 1)   // a second answer is ignored
        Self.deliver(answers, to: &h)
        let encrypted = Self.encrypt(&h)
        #expect(encrypted)
        #expect(h.security.linkSecurity(Self.handle).authenticated)
        #expect(request?.isAnswered == true)
    }

    @Test("Numeric Comparison through the agent: both sides see the same six digits, and confirming pairs",
          .timeLimit(.minutes(10)))
    func agentConfirmsNumber() async {
        let agent = PairingAgent(), answers = Answers()
        var h = Self.harness(ours: SMPConfiguration(ioCapability: .keyboardDisplay, requiresMITM: true),
                             peer: SMPConfiguration(ioCapability: .displayYesNo, requiresMITM: true),
                             agent: agent, answers: answers)
        h.receive(Harness.smpACL(Self.securityRequest))
        var requests = agent.makeAsyncIterator()
        let request = await requests.next()
        guard case .confirmNumber(let ours)? = request?.kind else {
            Issue.record("\(String(describing: request))")
            return
        }
        let theirs = h.peerOut.events.compactMap { event -> UInt32? in
            if case .confirmNumericComparison(let value) = event { return value }
            return nil
        }.first
        #expect(theirs == ours, "both users see \(ours)")
        request?.confirm(true)
        Self.deliver(answers, to: &h)
        h.peerOut.removeAll()
        h.peer.answer(.numericComparison(true), at: h.now, into: &h.peerOut)
        h.deliverPeerOutput()
        let encrypted = Self.encrypt(&h)
        #expect(encrypted)
        #expect(h.security.linkSecurity(Self.handle) == LinkSecurity(encrypted: true, authenticated: true,
                                                                      secureConnections: true, keySize: 16))
    }

    @Test("a request nobody answers fails the pairing at the SMP timeout; the late answer is dropped",
          .timeLimit(.minutes(10)))
    func unansweredTimesOut() async {
        let agent = PairingAgent(), answers = Answers()
        var h = Self.harness(ours: SMPConfiguration(ioCapability: .keyboardOnly, requiresMITM: true),
                             peer: SMPConfiguration(ioCapability: .displayOnly, requiresMITM: true),
                             agent: agent, answers: answers)
        h.receive(Harness.smpACL(Self.securityRequest))
        var requests = agent.makeAsyncIterator()
        let request = await requests.next()
        #expect(request?.kind == .enterPasskey)
        #expect(h.security.deadline == h.now + .seconds(30))
        h.advance(.seconds(30))
        #expect(h.security.deadline == nil, "the manager timed out")
        let sentBefore = h.smpSent.count
        request?.respond(passkey: Self.peerPasskey(h) ?? 0)
        Self.deliver(answers, to: &h)
        #expect(h.smpSent.count == sentBefore, "nothing sent for an expired request")
        #expect(h.lastEnableEncryption == nil)
    }

    @Test("a refusal from the agent sends Numeric Comparison Failed", .timeLimit(.minutes(10)))
    func agentRefusesNumber() async {
        let agent = PairingAgent(), answers = Answers()
        var h = Self.harness(ours: SMPConfiguration(ioCapability: .keyboardDisplay, requiresMITM: true),
                             peer: SMPConfiguration(ioCapability: .displayYesNo, requiresMITM: true),
                             agent: agent, answers: answers)
        h.receive(Harness.smpACL(Self.securityRequest))
        var requests = agent.makeAsyncIterator()
        let request = await requests.next()
        request?.confirm(false)
        Self.deliver(answers, to: &h)
        #expect(h.smpSent.last == [0x05, 0x0C], "\(h.smpSent)")
        #expect(h.lastEnableEncryption == nil)
    }

    @Test("accepting Just Works: with confirmsJustWorks the agent is asked, and accepting pairs (unauthenticated)",
          .timeLimit(.minutes(10)))
    func agentAcceptsJustWorks() async {
        let agent = PairingAgent(), answers = Answers()
        var ours = SMPConfiguration()
        ours.confirmsJustWorks = true
        var h = Self.harness(ours: ours, peer: SMPConfiguration(), agent: agent, answers: answers)
        h.receive(Harness.smpACL([0x0B, 0x09]))
        var requests = agent.makeAsyncIterator()
        let request = await requests.next()
        #expect(request?.kind == .acceptJustWorks)
        #expect(h.lastEnableEncryption == nil, "nothing encrypts before the user accepts")
        #expect(!h.smpSent.contains { $0.first == 0x0D }, "no DHKey Check before the user accepts")
        request?.accept()
        Self.deliver(answers, to: &h)
        let encrypted = Self.encrypt(&h)
        #expect(encrypted)
        #expect(h.security.linkSecurity(Self.handle) == LinkSecurity(encrypted: true, secureConnections: true, keySize: 16))
    }

    @Test("refusing Just Works fails with Numeric Comparison Failed", .timeLimit(.minutes(10)))
    func agentRefusesJustWorks() async {
        let agent = PairingAgent(), answers = Answers()
        var ours = SMPConfiguration()
        ours.confirmsJustWorks = true
        var h = Self.harness(ours: ours, peer: SMPConfiguration(), agent: agent, answers: answers)
        h.receive(Harness.smpACL([0x0B, 0x09]))
        var requests = agent.makeAsyncIterator()
        let request = await requests.next()
        request?.refuse()
        Self.deliver(answers, to: &h)
        #expect(h.smpSent.last == [0x05, 0x0C], "\(h.smpSent)")
        #expect(h.lastEnableEncryption == nil)
    }

    @Test("a finished agent refuses what it is asked, from a task of its own", .timeLimit(.minutes(10)))
    func finishedAgentRefuses() async {
        let agent = PairingAgent()
        agent.finish()
        let refused = AsyncStream.makeStream(of: SecurityManagerAnswer.self)
        agent.ask(PairingRequest(kind: .enterPasskey, peerAddress: UserlandSecurityTests.peer,
                                 reply: PairingReply { refused.continuation.yield($0) }))
        var answers = refused.stream.makeAsyncIterator()
        #expect(await answers.next() == .refuse)
    }

    @Test("the IO capabilities map onto the Pairing Request's octet, and the configuration onto the manager's")
    func configurationMaps() {
        #expect(PairingIOCapabilities.allCases.map(\.smp.rawValue) == [0x03, 0x00, 0x01, 0x02, 0x04])
        let smp = PairingConfiguration(ioCapabilities: .keyboard, requiresMITM: true, bonding: false,
                                       secureConnectionsOnly: true, passkey: 1_000_000).securityManager
        #expect(smp.ioCapability == .keyboardOnly && smp.requiresMITM && !smp.bonding && smp.secureConnectionsOnly)
        #expect(smp.fixedPasskey == nil, "a passkey above 999999 is never shown")
        #expect(PairingRequest.digits(42) == "000042")
    }
}
