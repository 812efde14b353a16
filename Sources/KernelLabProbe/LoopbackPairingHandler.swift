import Synchronization
import Transport

/// Answers for both ends when the kernel pairs two of its own adapters, one agent serving
/// both: Just Works is accepted; a passkey one side displays (Passkey Notify) is what the
/// other side enters; a numeric comparison is accepted only when both sides were shown
/// the same six digits. That is what two people would do, and it drives every request
/// kind of the mgmt agent through the real kernel.
final class LoopbackPairingHandler: KernelPairingHandler {
    private struct State {
        var displayed: UInt32?
        var passkeyWaiters: [CheckedContinuation<UInt32?, Never>] = []
        /// Comparison values by adapter, and who waits for the other side's.
        var compared: [UInt16: UInt32] = [:]
        var comparisonWaiters: [(index: UInt16, continuation: CheckedContinuation<UInt32?, Never>)] = []
        /// Answers instead while set: a peer (our userland host) shows a known passkey.
        var fixed: FixedPasskeyPairingHandler?
    }
    private let state = Mutex(State())

    var ioCapability: KernelIOCapability? { nil }

    /// Enters `passkey` whenever the kernel asks (nil: back to passing hci1's and hci2's
    /// own passkeys across).
    func useFixedPasskey(_ passkey: UInt32?) {
        state.withLock { $0.fixed = passkey.map { FixedPasskeyPairingHandler(passkey: $0) } }
    }

    func answer(_ request: KernelPairingRequest) async -> KernelPairingAnswer {
        if let fixed = state.withLock({ $0.fixed }) { return await fixed.answer(request) }
        switch request.kind {
        case .justWorks:
            return .accept
        case .passkeyDisplay(let passkey, _):
            let waiters = state.withLock { s -> [CheckedContinuation<UInt32?, Never>] in
                s.displayed = passkey
                defer { s.passkeyWaiters = [] }
                return s.passkeyWaiters
            }
            for waiter in waiters { waiter.resume(returning: passkey) }
            return .accept
        case .passkeyEntry:
            let passkey = await withCheckedContinuation { (continuation: CheckedContinuation<UInt32?, Never>) in
                let now = state.withLock { s -> UInt32?? in
                    if let shown = s.displayed { return .some(shown) }
                    s.passkeyWaiters.append(continuation)
                    return .none
                }
                if case .some(let shown) = now { continuation.resume(returning: shown) }
            }
            return passkey.map { .passkey($0) } ?? .reject
        case .numericComparison(let value):
            let index = request.peer.adapterIndex
            let other = await withCheckedContinuation { (continuation: CheckedContinuation<UInt32?, Never>) in
                let (mine, theirs) = state.withLock { s -> ([CheckedContinuation<UInt32?, Never>], UInt32?) in
                    s.compared[index] = value
                    let waiting = s.comparisonWaiters.filter { $0.index != index }.map(\.continuation)
                    s.comparisonWaiters.removeAll { $0.index != index }
                    if let theirs = s.compared.first(where: { $0.key != index })?.value { return (waiting, theirs) }
                    s.comparisonWaiters.append((index, continuation))
                    return (waiting, nil)
                }
                for waiter in mine { waiter.resume(returning: value) }
                if let theirs { continuation.resume(returning: theirs) }
            }
            return other == value ? .accept : .reject
        }
    }
}
