import HCI
import SMP

/// Bonds on the userland host: a completed pairing's keys go to the ``BondKeeper``, a
/// bonded peripheral's link is encrypted with its stored LTK, and a bonded central's LTK
/// request is answered from the store.
extension UserlandSecurity {
    /// The keys of a completed pairing, as the transport-independent value the managers store.
    /// Nil when the pairing left nothing to keep (no bonding, or no LTK distributed).
    static func keys(of result: PairingResult, _ info: ConnectionInfo) -> PairingKeys? {
        guard result.bonded else { return nil }
        let role: PairingKeys.Role = info.role == .central ? .central : .peripheral
        // The key the next links encrypt with: Secure Connections' own LTK; for LE legacy
        // the one the peripheral distributed (the peer's when we are central, ours otherwise).
        let ltk: SMPKey?, ediv: UInt16, rand: UInt64
        if result.secureConnections {
            (ltk, ediv, rand) = (result.longTermKey, 0, 0)
        } else {
            let distributed = role == .central ? result.peerKeys : result.localKeys
            (ltk, ediv, rand) = (distributed.longTermKey, distributed.ediv, distributed.rand)
        }
        guard let ltk else { return nil }
        var key = ltk.bytes
        for index in max(0, min(16, result.keySize))..<16 { key[index] = 0 }
        let identity = result.peerKeys.identityAddress
        return PairingKeys(
            role: role, peerAddress: info.peerAddress, peerAddressType: info.peerAddressType,
            identityAddress: identity?.address,
            identityAddressType: identity.map { $0.isRandom ? .random : .public },
            longTermKey: key, encryptedDiversifier: ediv, random: rand,
            identityResolvingKey: result.peerKeys.identityResolvingKey?.bytes,
            signatureKey: result.peerKeys.signatureKey?.bytes,
            localSignatureKey: result.localKeys.signatureKey?.bytes, keySize: result.keySize,
            isAuthenticated: result.securityLevel == .authenticated, isSecureConnections: result.secureConnections)
    }

    /// Hands a completed pairing's keys to the keeper.
    func reportPaired(_ result: PairingResult, _ info: ConnectionInfo) {
        guard let keeper, let keys = Self.keys(of: result, info) else { return }
        keeper.paired(keys)
    }

    /// Peripheral: the controller asks for the LTK of a link no pairing runs on. When the
    /// central is bonded and asks with the stored EDIV and Rand (0 and 0 for Secure
    /// Connections), the stored key answers; otherwise the manager answers negatively.
    mutating func answerFromBond(_ request: LELongTermKeyRequest, _ info: ConnectionInfo, host: inout HCIHost,
                                 out: inout HostOutput, nextID: inout UInt64, at now: MonotonicTime) -> Bool {
        guard info.role == .peripheral, managers[request.handle]?.isPairing != true, let keeper,
              let bond = keeper.bond(for: info.peerAddress, type: info.peerAddressType, role: .peripheral),
              bond.encryptedDiversifier == request.encryptedDiversifier, bond.random == request.random,
              let material = LinkKeyMaterial(bond.longTermKey) else { return false }
        prompts.encrypting(with: bond, on: request.handle)
        perform(.longTermKeyReply(handle: request.handle, longTermKey: material), host: &host, out: &out,
                nextID: &nextID, at: now)
        return true
    }

    /// Central: a peripheral we are bonded with sends a Security Request. The bond answers
    /// it (Vol 3 Part H §2.4.6): the link is encrypted with the stored LTK, or already is or
    /// is being, instead of pairing again. A request for MITM protection that the bond
    /// lacks goes to the manager, which pairs anew.
    mutating func securityRequestAnsweredByBond(_ pdu: [UInt8], _ info: ConnectionInfo, host: inout HCIHost,
                                                out: inout HostOutput, nextID: inout UInt64, at now: MonotonicTime) -> Bool {
        guard info.role == .central, pdu.count == 2, pdu[0] == SMPCode.securityRequest.rawValue,
              managers[info.handle]?.isPairing != true, let keeper,
              let bond = keeper.bond(for: info.peerAddress, type: info.peerAddressType, role: .central) else { return false }
        let requirements = AuthenticationRequirements(rawValue: pdu[1])
        if requirements.contains(.mitm) && !bond.isAuthenticated { return false }
        // Encrypted, or encryption under way (its command in flight, or a connect waiting
        // for its Encryption Change): nothing more to do.
        if host.isEncrypted(info.handle) == true || encryptionRequests.values.contains(info.handle)
            || waiters[info.handle] != nil { return true }
        guard let material = LinkKeyMaterial(bond.longTermKey) else { return false }
        prompts.encrypting(with: bond, on: info.handle)
        let id = perform(.startEncryption(handle: info.handle, random: bond.random, encryptedDiversifier: bond.encryptedDiversifier,
                                          longTermKey: material), host: &host, out: &out, nextID: &nextID, at: now)
        encryptionRequests[id] = info.handle
        return true
    }

    /// Central: encrypts the link with a stored bond (HCI LE Enable Encryption with its
    /// EDIV and Rand) and resumes `waiter` with the Encryption Change outcome. No SMP PDU
    /// is sent: nothing pairs.
    mutating func encrypt(_ handle: UInt16, with bond: PairingKeys,
                          waiter: CheckedContinuation<Result<Void, AttuneError>, Never>,
                          host: inout HCIHost, out: inout HostOutput, nextID: inout UInt64, at now: MonotonicTime) {
        guard let info = host.connection(handle), info.role == .central else {
            waiter.resume(returning: .failure(.notConnected))
            return
        }
        guard let material = LinkKeyMaterial(bond.longTermKey) else {
            waiter.resume(returning: .failure(.securityFailed("the stored bond's LTK is not 16 octets")))
            return
        }
        waiters[handle, default: []].append(waiter)
        prompts.encrypting(with: bond, on: handle)
        let id = perform(.startEncryption(handle: handle, random: bond.random, encryptedDiversifier: bond.encryptedDiversifier,
                                          longTermKey: material), host: &host, out: &out, nextID: &nextID, at: now)
        encryptionRequests[id] = handle
    }
}
