import HCI
import SMP

/// The Security Managers of a ``UserlandHost``'s connections: one per link, made when the
/// link first needs one (an SMP PDU, an LTK request, or ``UserlandHost/raiseSecurity(on:)``).
///
/// It sits above the sans-I/O ``HCIHost`` (which only carries SMP bytes and the encryption
/// commands and events) and below the host's lock: every call happens under it, feeds a
/// manager, and carries out what the manager asked for as host requests. It reads no clock
/// (the time comes in) and owns no timer (the host arms one at ``deadline``).
///
/// Keys only pass through, from the manager's output into HCI commands; nothing here
/// prints or keeps one.
struct UserlandSecurity {
    /// How our side pairs: Secure Connections Just Works (NoInputNoOutput), bonding asked.
    let configuration: SMPConfiguration
    var managers: [UInt16: SecurityManager] = [:]
    /// Who answers the managers' requests for the user, and each link's security.
    var prompts: UserlandPairingPrompts
    /// Callers of ``UserlandHost/raiseSecurity(on:)`` per link, waiting for encryption.
    var waiters: [UInt16: [CheckedContinuation<Result<Void, AttuneError>, Never>]] = [:]
    /// LE Enable Encryption requests in flight, by request ID, and their link.
    var encryptionRequests: [HostRequestID: UInt16] = [:]
    /// Reused for every manager call.
    var output = SecurityManagerOutput()
    /// Where completed pairings go and bonds come from (see UserlandSecurity+Bonds).
    let keeper: (any BondKeeper)?

    init(configuration: SMPConfiguration, prompts: UserlandPairingPrompts = UserlandPairingPrompts(),
         keeper: (any BondKeeper)? = nil) {
        self.configuration = configuration
        self.prompts = prompts
        self.keeper = keeper
    }

    /// The earliest SMP timeout of any link.
    var deadline: MonotonicTime? {
        managers.values.compactMap(\.deadline).min()
    }

    // MARK: - Inputs

    /// A caller waits for the link to be encrypted; pairing starts unless it already runs.
    mutating func raise(_ handle: UInt16, waiter: CheckedContinuation<Result<Void, AttuneError>, Never>,
                        host: inout HCIHost, out: inout HostOutput, nextID: inout UInt64, at now: MonotonicTime) {
        guard let info = host.connection(handle) else {
            waiter.resume(returning: .failure(.notConnected))
            return
        }
        var manager = self.manager(handle, info, host)
        if manager.isClosed {
            waiter.resume(returning: .failure(.securityFailed(
                "SMP timed out earlier on this link (Vol 3 Part H §3.4), so it cannot pair again until a new connection")))
            return
        }
        waiters[handle, default: []].append(waiter)
        output.removeAll()
        manager.start(at: now, into: &output)
        managers[handle] = manager
        carryOut(handle, info, host: &host, out: &out, nextID: &nextID, at: now)
    }

    /// Feeds a host event to the link's manager: SMP PDUs, LTK requests, encryption
    /// outcomes and the end of the link.
    mutating func handle(_ event: HostEvent, host: inout HCIHost, out: inout HostOutput, nextID: inout UInt64,
                         at now: MonotonicTime) {
        switch event {
        case .securityManagerData(let handle, let pdu):
            guard let info = host.connection(handle) else { return }
            if securityRequestAnsweredByBond(pdu, info, host: &host, out: &out, nextID: &nextID, at: now) { return }
            var manager = self.manager(handle, info, host)
            output.removeAll()
            manager.receive(pdu[...], at: now, into: &output)
            managers[handle] = manager
            carryOut(handle, info, host: &host, out: &out, nextID: &nextID, at: now)
        case .longTermKeyRequested(let request):
            guard let info = host.connection(request.handle) else { return }
            if answerFromBond(request, info, host: &host, out: &out, nextID: &nextID, at: now) { return }
            var manager = self.manager(request.handle, info, host)
            output.removeAll()
            manager.longTermKeyRequested(ediv: request.encryptedDiversifier, rand: request.random, at: now, into: &output)
            managers[request.handle] = manager
            carryOut(request.handle, info, host: &host, out: &out, nextID: &nextID, at: now)
        case .encryptionChanged(let change):
            encryption(change.handle, status: change.status, on: change.encryptionEnabled != 0,
                       host: &host, out: &out, nextID: &nextID, at: now)
        case .encryptionKeyRefreshed(let refresh):
            encryption(refresh.handle, status: refresh.status, on: true, host: &host, out: &out, nextID: &nextID, at: now)
        case .disconnected(let handle, let reason):
            linkGone(handle, .peripheralDisconnected(.hci(reason)))
        case .connectionEnded(let handle, let error):
            linkGone(handle, .peripheralDisconnected(.transport(error.description)))
        default:
            break
        }
    }

    /// A request finished; true when it was one of ours (LE Enable Encryption).
    mutating func completed(_ id: HostRequestID, _ result: Result<HostCompletion, HostError>,
                            host: inout HCIHost, out: inout HostOutput, nextID: inout UInt64, at now: MonotonicTime) -> Bool {
        guard let handle = encryptionRequests.removeValue(forKey: id) else { return false }
        guard case .failure(let error) = result else { return true }
        let status: HCIStatus = if case .commandFailed(_, let status) = error { status } else { .noControllerStatus }
        if let info = host.connection(handle), var manager = managers[handle] {
            output.removeAll()
            manager.encryptionFailed(status: status.rawValue, at: now, into: &output)
            managers[handle] = manager
            carryOut(handle, info, host: &host, out: &out, nextID: &nextID, at: now)
        }
        resume(handle, .failure(.securityFailed("the controller refused LE Enable Encryption: \(error)")))
        return true
    }

    /// Time passed: managers whose SMP timer ran out fail their pairing.
    mutating func tick(host: inout HCIHost, out: inout HostOutput, nextID: inout UInt64, at now: MonotonicTime) {
        for (handle, var manager) in managers {
            guard let deadline = manager.deadline, deadline <= now, let info = host.connection(handle) else { continue }
            output.removeAll()
            manager.tick(at: now, into: &output)
            managers[handle] = manager
            carryOut(handle, info, host: &host, out: &out, nextID: &nextID, at: now)
        }
    }

    /// The host stopped: every waiter fails with its reason.
    mutating func stopped(_ error: HostError) {
        for handle in Array(waiters.keys) { linkGone(handle, .peripheralDisconnected(.transport(error.description))) }
    }

    // MARK: - Machinery

    private func manager(_ handle: UInt16, _ info: ConnectionInfo, _ host: HCIHost) -> SecurityManager {
        if let existing = managers[handle] { return existing }
        let local: SMPAddress
        if info.ownAddressType == .random, let random = host.randomAddress {
            local = SMPAddress(random, isRandom: true)
        } else {
            local = SMPAddress(host.controller?.publicAddress ?? BluetoothAddress(rawValue: 0), isRandom: false)
        }
        // The address the link was made with; the identity types are resolved forms of it.
        let peer = SMPAddress(info.peerAddress, isRandom: !info.peerAddressType.isPublic)
        // Our identity address is the one initialisation settled on: the controller's
        // public address when it has one, else the static random address from the store.
        var configuration = self.configuration
        if var identity = configuration.identity, host.controller != nil {
            identity.address = local
            configuration.identity = identity
        }
        return SecurityManager(role: info.role == .central ? .initiator : .responder, configuration: configuration,
                               localAddress: local, peerAddress: peer)
    }

    private mutating func encryption(_ handle: UInt16, status: HCIStatus, on: Bool, host: inout HCIHost,
                                     out: inout HostOutput, nextID: inout UInt64, at now: MonotonicTime) {
        guard let info = host.connection(handle) else { return }
        if status.isSuccess { prompts.encryption(on, on: handle, progress: managers[handle]?.progress) }
        if var manager = managers[handle] {
            output.removeAll()
            if status.isSuccess && on {
                manager.encryptionChanged(at: now, into: &output)
            } else if !status.isSuccess {
                manager.encryptionFailed(status: status.rawValue, at: now, into: &output)
            }
            managers[handle] = manager
            carryOut(handle, info, host: &host, out: &out, nextID: &nextID, at: now)
        }
        if status.isSuccess && on {
            // A pairing's waiters wait for its key distribution too, which follows the
            // encryption (Vol 3 Part H §3.6.1): a caller that ended the link as soon as it
            // was encrypted left both sides without a bond. `.paired` or `.failed` in
            // ``carryOut`` resumes them then.
            if managers[handle]?.isPairing != true { resume(handle, .success(())) }
        } else if !status.isSuccess {
            resume(handle, .failure(.securityFailed("the link did not encrypt: Encryption Change reported \(status.namedDescription)")))
        }
    }

    /// Carries out what the link's manager put in ``output``: PDUs to send, encryption to
    /// start or an LTK request to answer, and the outcome for whoever waits. Requests for a
    /// user's answer go to ``prompts``: answered at once (a fixed passkey, a refusal when
    /// nobody is there to ask) or later through ``answer(_:request:with:host:out:nextID:at:)``.
    mutating func carryOut(_ handle: UInt16, _ info: ConnectionInfo, host: inout HCIHost, out: inout HostOutput,
                           nextID: inout UInt64, at now: MonotonicTime) {
        var rounds = 0
        while rounds < 4 {
            rounds += 1
            for range in output.pdus {
                perform(.sendL2CAP(handle: handle, channel: .securityManager, payload: Array(output.bytes(of: range))),
                        host: &host, out: &out, nextID: &nextID, at: now)
            }
            var immediate: SecurityManagerAnswer?
            for event in output.events {
                switch event {
                case .startEncryption(let key, let ediv, let rand, _):
                    guard let material = LinkKeyMaterial(key.bytes) else { continue }
                    let id = perform(.startEncryption(handle: handle, random: rand, encryptedDiversifier: ediv,
                                                      longTermKey: material), host: &host, out: &out, nextID: &nextID, at: now)
                    encryptionRequests[id] = handle
                case .longTermKeyReply(let key):
                    guard let material = LinkKeyMaterial(key.bytes) else { continue }
                    perform(.longTermKeyReply(handle: handle, longTermKey: material), host: &host, out: &out, nextID: &nextID, at: now)
                case .longTermKeyNegativeReply:
                    perform(.longTermKeyNegativeReply(handle: handle), host: &host, out: &out, nextID: &nextID, at: now)
                case .paired(let result):
                    // The keys are distributed: the pairing's waiters go on, the keys to the store.
                    reportPaired(result, info)
                    prompts.paired(result, on: handle)
                    prompts.expire(handle)
                    resume(handle, .success(()))
                case .failed(let failure):
                    prompts.expire(handle)
                    resume(handle, .failure(.securityFailed("pairing with \(info.peerAddress) failed: \(Self.describe(failure))")))
                case .displayPasskey, .enterPasskey, .confirmNumericComparison, .confirmJustWorks:
                    if let answer = prompts.handle(event, on: handle, peer: info.peerAddress) { immediate = answer }
                case .securityRequested, .keypress:
                    break
                }
            }
            output.removeAll()
            guard let immediate, var manager = managers[handle] else { return }
            manager.answer(immediate, at: now, into: &output)
            managers[handle] = manager
        }
    }

    @discardableResult
    func perform(_ request: HostRequest, host: inout HCIHost, out: inout HostOutput, nextID: inout UInt64,
                         at now: MonotonicTime) -> HostRequestID {
        let id = HostRequestID(nextID)
        nextID += 1
        host.perform(request, id: id, at: now, into: &out)
        return id
    }

    mutating func resume(_ handle: UInt16, _ result: Result<Void, AttuneError>) {
        for waiter in waiters.removeValue(forKey: handle) ?? [] { waiter.resume(returning: result) }
    }

    private mutating func linkGone(_ handle: UInt16, _ error: AttuneError) {
        managers[handle] = nil
        prompts.linkGone(handle)
        for (id, link) in encryptionRequests where link == handle { encryptionRequests[id] = nil }
        resume(handle, .failure(error))
    }

    static func describe(_ failure: PairingFailure) -> String {
        switch failure {
        case .local(let reason): "we sent Pairing Failed, reason 0x\(hexString(reason.rawValue, digits: 2)) \(reason)"
        case .remote(let reason): "the peer sent Pairing Failed, reason 0x\(hexString(reason.rawValue, digits: 2)) \(reason)"
        case .timeout: "SMP timed out (30 s without the peer completing the procedure, Vol 3 Part H §3.4)"
        case .encryptionFailed(let status): "the link did not encrypt: \(HCIStatus(status).namedDescription)"
        }
    }

}
