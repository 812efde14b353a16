import ATT
import HCI
import SMP

/// The pairing glue: requests that raise a link's security, the user's answers, and the
/// share of the host's output that the links' Security Managers (``UserlandSecurity``) take.
extension UserlandHost {
    /// Raises the link's security: pairs with the peer (or joins the pairing it started)
    /// and returns once the link is encrypted and, when it paired, the keys are distributed
    /// both ways (so a caller may end the link at once and both sides keep the bond).
    /// Throws ``AttuneError/securityUnavailable(_:)`` when the host was not configured to pair, and ``AttuneError/securityFailed(_:)`` with
    /// the Pairing Failed reason or HCI status when pairing or encryption failed.
    public func raiseSecurity(on handle: UInt16) async throws(AttuneError) {
        let pairs = state.withLock { $0.host.configuration.pairingEnabled }
        guard pairs else {
            throw .securityUnavailable("this userland host was started with pairing disabled (HostConfiguration.pairingEnabled)")
        }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, AttuneError>, Never>) in
            state.withLock { state in
                guard state.stopped == nil else {
                    continuation.resume(returning: .failure(.notConnected))
                    return
                }
                state.security.raise(handle, waiter: continuation, host: &state.host, out: &state.out,
                                     nextID: &state.requests.nextID, at: Self.now())
                execute(&state)
            }
        }
        try result.get()
    }

    /// Encrypts a link we are central of with a stored bond (LE Enable Encryption with its
    /// EDIV and Rand; 0 and 0 for Secure Connections) and returns once Encryption Change
    /// reports it on. Throws ``AttuneError/securityFailed(_:)`` with the HCI status when
    /// the peer or the controller refused (PIN or Key Missing, 0x06: the peer lost the bond).
    func encrypt(on handle: UInt16, with bond: PairingKeys) async throws(AttuneError) {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, AttuneError>, Never>) in
            state.withLock { state in
                guard state.stopped == nil else {
                    continuation.resume(returning: .failure(.notConnected))
                    return
                }
                state.security.encrypt(handle, with: bond, waiter: continuation, host: &state.host, out: &state.out,
                                       nextID: &state.requests.nextID, at: Self.now())
                execute(&state)
            }
        }
        try result.get()
    }

    /// A user's answer to a pairing request of link `handle` (see ``PairingAgent``).
    func answerPairing(handle: UInt16, request id: UInt64, with answer: SecurityManagerAnswer) {
        state.withLock { state in
            guard state.stopped == nil else { return }
            state.security.answer(handle, request: id, with: answer, host: &state.host, out: &state.out,
                                  nextID: &state.requests.nextID, at: Self.now())
            execute(&state)
        }
    }

    /// How the link is secured, as the pairing that keyed it left it: what an ATT server
    /// checks attribute permissions against. `.none` before encryption.
    public func linkSecurity(on handle: UInt16) -> LinkSecurity { state.withLock { $0.security.linkSecurity(handle) } }

    /// Whether the link is encrypted; nil when no connection has this handle.
    public func isEncrypted(_ handle: UInt16) -> Bool? { state.withLock { $0.host.isEncrypted(handle) } }

    /// What the Security Managers make of a host event, when the host pairs.
    enum SecurityShare {
        /// Not theirs.
        case none
        /// Theirs alone: SMP data and LTK requests go no further.
        case taken
        /// Theirs too: the link's encryption and end, which the application also sees.
        case copied
    }

    static func securityShare(of event: HostEvent) -> SecurityShare {
        switch event {
        case .securityManagerData, .longTermKeyRequested: .taken
        case .encryptionChanged, .encryptionKeyRefreshed, .disconnected, .connectionEnded: .copied
        default: .none
        }
    }

    /// Hands the Security Managers their share of one round of output; what they answer
    /// goes into `state.out`, for the next round.
    func runSecurity(_ events: [HostEvent], _ completions: [HostOutput.Completion], _ state: inout State) {
        let now = Self.now()
        for event in events {
            state.security.handle(event, host: &state.host, out: &state.out, nextID: &state.requests.nextID, at: now)
        }
        for completion in completions {
            _ = state.security.completed(completion.id, completion.result, host: &state.host, out: &state.out,
                                         nextID: &state.requests.nextID, at: now)
        }
    }
}
