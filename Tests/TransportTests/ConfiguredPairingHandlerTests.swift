import HCI
import Testing
@testable import Transport

/// The kernel agent's handler for a manager's PairingConfiguration: each kernel request
/// reaches the public PairingAgent as the right kind, and each answer goes back to the
/// kernel as the right reply.
@Suite struct ConfiguredPairingHandlerTests {
    static let peer = KernelPeer(adapterIndex: 0, address: BluetoothAddress("00:AA:01:00:00:01")!, addressType: .lePublic)

    static func request(_ kind: KernelPairingRequest.Kind) -> KernelPairingRequest {
        KernelPairingRequest(peer: peer, kind: kind)
    }

    /// Asks the handler while a consumer answers the agent's first request with `respond`;
    /// returns the kind the agent saw and the kernel's answer.
    static func ask(_ kind: KernelPairingRequest.Kind, configuration: (PairingAgent) -> PairingConfiguration,
                    respond: @escaping @Sendable (PairingRequest) -> Void) async -> (PairingRequest.Kind?, KernelPairingAnswer) {
        let agent = PairingAgent()
        let handler = ConfiguredPairingHandler(configuration(agent))
        let seen = Task { () -> PairingRequest.Kind? in
            for await request in agent {
                respond(request)
                return request.kind
            }
            return nil
        }
        let answer = await handler.answer(request(kind))
        agent.finish()
        return (await seen.value, answer)
    }

    @Test func passkeyRequestAsksTheAgentToEnterOne() async {
        let (kind, answer) = await Self.ask(.passkeyEntry, configuration: { PairingConfiguration(agent: $0) }) {
            $0.respond(passkey: 123_456)
        }
        #expect(kind == .enterPasskey)
        #expect(answer == .passkey(123_456))
        // Digits out of range are a refusal, not a passkey.
        let (_, tooLarge) = await Self.ask(.passkeyEntry, configuration: { PairingConfiguration(agent: $0) }) {
            $0.respond(passkey: 1_000_000)
        }
        #expect(tooLarge == .reject)
    }

    @Test func confirmationWithAValueIsANumericComparison() async {
        let (kind, yes) = await Self.ask(.numericComparison(42), configuration: { PairingConfiguration(agent: $0) }) {
            $0.confirm(true)
        }
        #expect(kind == .confirmNumber(42))
        #expect(yes == .accept)
        let (_, no) = await Self.ask(.numericComparison(42), configuration: { PairingConfiguration(agent: $0) }) {
            $0.confirm(false)
        }
        #expect(no == .reject)
        let (_, refused) = await Self.ask(.numericComparison(42), configuration: { PairingConfiguration(agent: $0) }) {
            $0.refuse()
        }
        #expect(refused == .reject)
    }

    @Test func justWorksIsAcceptedUnlessConfirmsJustWorks() async {
        let plain = ConfiguredPairingHandler(PairingConfiguration(agent: PairingAgent()))
        #expect(await plain.answer(Self.request(.justWorks)) == .accept)
        let (kind, accepted) = await Self.ask(.justWorks, configuration: { PairingConfiguration(confirmsJustWorks: true, agent: $0) }) {
            $0.accept()
        }
        #expect(kind == .acceptJustWorks)
        #expect(accepted == .accept)
        let (_, refused) = await Self.ask(.justWorks, configuration: { PairingConfiguration(confirmsJustWorks: true, agent: $0) }) {
            $0.refuse()
        }
        #expect(refused == .reject)
        // Confirming with no agent to ask: refused at once.
        let nobody = ConfiguredPairingHandler(PairingConfiguration(confirmsJustWorks: true))
        #expect(await nobody.answer(Self.request(.justWorks)) == .reject)
    }

    @Test func passkeyNotifyIsShownAsDisplayPasskey() async {
        let agent = PairingAgent()
        let handler = ConfiguredPairingHandler(PairingConfiguration(agent: agent))
        _ = await handler.answer(Self.request(.passkeyDisplay(7_654, entered: 0)))
        agent.finish()
        var kinds: [PairingRequest.Kind] = []
        for await request in agent { kinds.append(request.kind) }
        #expect(kinds == [.displayPasskey(7_654)])
    }

    @Test func aFixedPasskeyAnswersWithoutTheAgent() async {
        let agent = PairingAgent()
        let handler = ConfiguredPairingHandler(PairingConfiguration(ioCapabilities: .keyboard, passkey: 4_321, agent: agent))
        #expect(await handler.answer(Self.request(.passkeyEntry)) == .passkey(4_321))
        #expect(handler.ioCapability == .keyboardOnly)
        agent.finish()
        var asked = 0
        for await _ in agent { asked += 1 }
        #expect(asked == 0)
    }

    @Test func withoutAnAgentWhatNeedsTheUserIsRefused() async {
        let handler = ConfiguredPairingHandler(PairingConfiguration())
        #expect(await handler.answer(Self.request(.passkeyEntry)) == .reject)
        #expect(await handler.answer(Self.request(.numericComparison(1))) == .reject)
        #expect(handler.ioCapability == .noInputNoOutput)
    }

    @Test func ioCapabilitiesMapToSetIOCapability() {
        let expected: [PairingIOCapabilities: KernelIOCapability] = [
            .noInputNoOutput: .noInputNoOutput, .display: .displayOnly, .displayYesNo: .displayYesNo,
            .keyboard: .keyboardOnly, .keyboardDisplay: .keyboardDisplay,
        ]
        for capability in PairingIOCapabilities.allCases {
            #expect(ConfiguredPairingHandler(PairingConfiguration(ioCapabilities: capability)).ioCapability == expected[capability])
        }
    }

    @Test func theKernelAgentsTimeoutRefusesForAnAgentNobodyReads() async {
        // The agent is never read: the kernel agent's timer cancels the handler, which
        // must end with a refusal rather than wait for ever.
        let handler = ConfiguredPairingHandler(PairingConfiguration(agent: PairingAgent()))
        let answered = await KernelPairingAgent.answer(Self.request(.passkeyEntry), handler: handler, timeout: .milliseconds(50))
        #expect(answered.timedOut)
        #expect(answered.answer == .reject)
    }
}
