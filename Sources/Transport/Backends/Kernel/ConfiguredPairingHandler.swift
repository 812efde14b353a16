import SMP
import Synchronization

/// The kernel agent's handler for a manager's ``PairingConfiguration``: the kernel's SMP
/// asks, and the configuration's fixed passkey or its ``PairingAgent`` answers, so a
/// kernel-transport pairing reaches the user through the same public agent as the
/// userland host's.
///
/// Passkey Notify → ``PairingRequest/Kind/displayPasskey(_:)``; User Passkey Request →
/// the fixed passkey, else ``PairingRequest/Kind/enterPasskey``; User Confirmation with a
/// value → ``PairingRequest/Kind/confirmNumber(_:)``; Just Works → accepted, unless
/// ``PairingConfiguration/confirmsJustWorks`` asks ``PairingRequest/Kind/acceptJustWorks``.
/// Without an agent, anything that needs the user is refused at once.
struct ConfiguredPairingHandler: KernelPairingHandler {
    let configuration: PairingConfiguration

    init(_ configuration: PairingConfiguration) {
        self.configuration = configuration
    }

    var ioCapability: KernelIOCapability? { KernelIOCapability(configuration.ioCapabilities) }

    func answer(_ request: KernelPairingRequest) async -> KernelPairingAnswer {
        switch request.kind {
        case .justWorks:
            guard configuration.confirmsJustWorks else { return .accept }
            return await ask(.acceptJustWorks, request)
        case .numericComparison(let value):
            return await ask(.confirmNumber(value % 1_000_000), request)
        case .passkeyEntry:
            // The same bound the userland host applies: a fixed passkey above 999999 is none.
            if let passkey = configuration.passkey, passkey <= 999_999 { return .passkey(passkey) }
            return await ask(.enterPasskey, request)
        case .passkeyDisplay(let passkey, _):
            // Shown only once (the kernel repeats Passkey Notify as digits are typed).
            guard let agent = configuration.agent, case .passkeyDisplay(_, 0) = request.kind else { return .reject }
            agent.ask(PairingRequest(kind: .displayPasskey(passkey % 1_000_000), peerAddress: request.peer.address,
                                     reply: PairingReply { _ in }))
            return .reject
        }
    }

    /// Puts the question to the agent and waits for its answer; a refusal when there is
    /// no agent, and when the kernel agent gives up waiting (its task is cancelled).
    private func ask(_ kind: PairingRequest.Kind, _ request: KernelPairingRequest) async -> KernelPairingAnswer {
        guard let agent = configuration.agent else { return .reject }
        let pending = PendingAnswer()
        let reply = PairingReply { answer in pending.resolve(answer) }
        let answer = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                pending.begin(continuation)
                agent.ask(PairingRequest(kind: kind, peerAddress: request.peer.address, reply: reply))
            }
        } onCancel: {
            reply.send(.refuse)
        }
        return Self.kernelAnswer(answer, to: kind)
    }

    /// What goes back to the kernel for the agent's answer to `kind`; anything that does
    /// not fit the question is a refusal.
    static func kernelAnswer(_ answer: SecurityManagerAnswer, to kind: PairingRequest.Kind) -> KernelPairingAnswer {
        switch (kind, answer) {
        case (.enterPasskey, .passkey(let passkey)) where passkey <= 999_999: .passkey(passkey)
        case (.confirmNumber, .numericComparison(true)), (.acceptJustWorks, .numericComparison(true)): .accept
        default: .reject
        }
    }
}

/// One answer from the agent, which may come before the waiter is in place (a refusal
/// from a full agent) or after it gave up: whichever comes second completes the wait.
private final class PendingAnswer: Sendable {
    private struct State {
        var continuation: CheckedContinuation<SecurityManagerAnswer, Never>?
        var answer: SecurityManagerAnswer?
    }
    private let state = Mutex(State())

    func begin(_ continuation: CheckedContinuation<SecurityManagerAnswer, Never>) {
        let early = state.withLock { s -> SecurityManagerAnswer? in
            if let answer = s.answer { return answer }
            s.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    func resolve(_ answer: SecurityManagerAnswer) {
        let waiting = state.withLock { s -> CheckedContinuation<SecurityManagerAnswer, Never>? in
            guard s.answer == nil else { return nil }
            s.answer = answer
            defer { s.continuation = nil }
            return s.continuation
        }
        waiting?.resume(returning: answer)
    }
}

extension KernelIOCapability {
    /// The kernel's Set IO Capability value for the public API's choice.
    init(_ capabilities: PairingIOCapabilities) {
        switch capabilities {
        case .noInputNoOutput: self = .noInputNoOutput
        case .display: self = .displayOnly
        case .displayYesNo: self = .displayYesNo
        case .keyboard: self = .keyboardOnly
        case .keyboardDisplay: self = .keyboardDisplay
        }
    }
}
