import ATT
import HCI
import SMP

/// The user's part of the userland host's pairings: who answers a Security Manager's
/// requests (a fixed passkey, the application's ``PairingAgent``, or a refusal), which
/// request each link waits on, and how strong each link's encryption is.
///
/// Lives inside ``UserlandSecurity``, under the host's lock; answers come back through
/// ``UserlandHost/answerPairing(handle:request:with:)``, which takes the lock again.
struct UserlandPairingPrompts {
    /// Typed when we input, shown when we display (the manager's configuration has it too).
    var passkey: UInt32?
    var agent: PairingAgent?
    /// Delivers an answer to the host: (link, request ID, answer). Set by the host once it exists.
    var answerer: (@Sendable (UInt16, UInt64, SecurityManagerAnswer) -> Void)?
    /// The request each link's manager waits on.
    private var pending: [UInt16: UInt64] = [:]
    private var nextRequest: UInt64 = 1
    /// What the server side checks attribute permissions against, per link.
    private var security: [UInt16: LinkSecurity] = [:]
    /// Links encrypting with a stored bond, and the security that bond gives.
    private var storedKeys: [UInt16: LinkSecurity] = [:]

    init(passkey: UInt32? = nil, agent: PairingAgent? = nil) {
        self.passkey = passkey
        self.agent = agent
    }

    /// What to tell the manager now about `event`: an answer, or nil when the agent was
    /// asked (its answer comes later) or there is nothing to answer.
    mutating func handle(_ event: SecurityManagerEvent, on handle: UInt16, peer: BluetoothAddress) -> SecurityManagerAnswer? {
        switch event {
        case .displayPasskey(let value):
            agent?.ask(PairingRequest(kind: .displayPasskey(value), peerAddress: peer, reply: PairingReply { _ in }))
            return nil
        case .enterPasskey:
            if let passkey { return .passkey(passkey) }
            return ask(.enterPasskey, on: handle, peer: peer) ? nil : .refuse
        case .confirmNumericComparison(let value):
            return ask(.confirmNumber(value), on: handle, peer: peer) ? nil : .refuse
        case .confirmJustWorks:
            return ask(.acceptJustWorks, on: handle, peer: peer) ? nil : .refuse
        default:
            return nil
        }
    }

    /// True when `id` is the request `handle` waits on; it is answered from now on.
    mutating func take(_ id: UInt64, on handle: UInt16) -> Bool {
        guard pending[handle] == id else { return false }
        pending[handle] = nil
        return true
    }

    /// The link's pairing ended (result, failure, timeout): its question expires.
    mutating func expire(_ handle: UInt16) { pending[handle] = nil }

    /// The link encrypted (or failed to); `progress` is the pairing that made the key, nil
    /// when none ran on this host (a stored key).
    mutating func encryption(_ on: Bool, on handle: UInt16, progress: PairingProgress?) {
        guard on else {
            security[handle] = nil
            storedKeys[handle] = nil
            return
        }
        // A stored bond's key: the link is as secure as the pairing that made the bond.
        if progress == nil, let bonded = storedKeys.removeValue(forKey: handle) {
            security[handle] = bonded
            return
        }
        // A key refresh outside pairing (the same key, or a stored one) keeps what the
        // pairing on this link established.
        if progress == nil, security[handle]?.encrypted == true { return }
        let keySize = UInt8(clamping: progress?.keySize ?? 16)
        security[handle] = LinkSecurity(encrypted: true, authenticated: progress?.isAuthenticated ?? false,
                                        secureConnections: progress?.secureConnections ?? false,
                                        keySize: keySize)
    }

    /// A completed pairing states its strength exactly (it may differ from what the link
    /// encrypted with only if the manager re-paired; the result wins).
    mutating func paired(_ result: PairingResult, on handle: UInt16) {
        guard security[handle]?.encrypted == true else { return }
        let authenticated = result.securityLevel == .authenticated
        security[handle] = LinkSecurity(encrypted: true, authenticated: authenticated,
                                        secureConnections: result.secureConnections,
                                        keySize: UInt8(clamping: result.keySize))
    }

    func linkSecurity(_ handle: UInt16) -> LinkSecurity { security[handle] ?? .none }

    /// The link is about to encrypt with a stored bond's LTK (no pairing on this host):
    /// when it does, it is as secure as the bond says, so a bonded central reaches
    /// attributes that need an authenticated key without pairing again.
    mutating func encrypting(with bond: PairingKeys, on handle: UInt16) {
        storedKeys[handle] = LinkSecurity(encrypted: true, authenticated: bond.isAuthenticated,
                                          secureConnections: bond.isSecureConnections,
                                          keySize: UInt8(clamping: bond.keySize))
    }

    mutating func linkGone(_ handle: UInt16) {
        pending[handle] = nil
        security[handle] = nil
        storedKeys[handle] = nil
    }

    private mutating func ask(_ kind: PairingRequest.Kind, on handle: UInt16, peer: BluetoothAddress) -> Bool {
        guard let agent, let answerer else { return false }
        let id = nextRequest
        nextRequest += 1
        pending[handle] = id
        agent.ask(PairingRequest(kind: kind, peerAddress: peer, reply: PairingReply { answerer(handle, id, $0) }))
        return true
    }
}
