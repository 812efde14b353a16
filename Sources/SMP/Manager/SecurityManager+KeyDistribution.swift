import BluetoothCore

/// Phase 3: key distribution over the encrypted link (§3.6), responder first, then the result.
extension SecurityManager {
    /// The negotiated distribution: what the initiator and the responder hand over.
    var negotiatedKeys: (initiator: KeyDistribution, responder: KeyDistribution) {
        guard let p = pairing, let r = p.response else { return ([], []) }
        return (r.initiatorKeyDistribution, r.responderKeyDistribution)
    }

    /// The PDUs that carry `keys`, in the order they are sent (§3.6.1).
    func codes(for keys: KeyDistribution, secureConnections: Bool) -> [SMPCode] {
        var out: [SMPCode] = []
        if keys.contains(.encKey) && !secureConnections { out += [.encryptionInformation, .centralIdentification] }
        if keys.contains(.idKey) { out += [.identityInformation, .identityAddressInformation] }
        if keys.contains(.signKey) { out.append(.signingInformation) }
        return out
    }

    mutating func beginKeyDistribution(at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) {
        guard let p = pairing else { return }
        let n = negotiatedKeys
        let (mine, theirs) = role == .initiator ? (n.initiator, n.responder) : (n.responder, n.initiator)
        pairing?.keysToSend = mine
        let expected = codes(for: theirs, secureConnections: p.secureConnections)
        pairing?.keysToReceive = expected
        if role == .responder { try sendOwnKeys(at: now, into: &output) }
        try finishIfDone(at: now, into: &output)
    }

    mutating func sendOwnKeys(at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) {
        guard let p = pairing, !p.sentOwnKeys else { return }
        var sent = DistributedKeys()
        let keys = p.keysToSend
        if keys.contains(.encKey) && !p.secureConnections {
            let ltk = Self.masked(try randomBytes(16), to: p.keySize)
            let r = try randomBytes(10)
            let ediv = UInt16(r[0]) | UInt16(r[1]) << 8
            var rand: UInt64 = 0
            for i in 0..<8 { rand |= UInt64(r[2 + i]) << (8 * UInt64(i)) }
            sent.longTermKey = ltk
            sent.ediv = ediv
            sent.rand = rand
            send(.encryptionInformation(EncryptionInformation(longTermKey: ltk)), at: now, into: &output)
            send(.centralIdentification(CentralIdentification(ediv: ediv, rand: rand)), at: now, into: &output)
        }
        if keys.contains(.idKey) {
            guard let identity = configuration.identity else { throw Abort(.unspecifiedReason) }
            sent.identityResolvingKey = identity.identityResolvingKey
            sent.identityAddress = identity.address
            send(.identityInformation(IdentityInformation(identityResolvingKey: identity.identityResolvingKey)), at: now, into: &output)
            send(.identityAddressInformation(IdentityAddressInformation(address: identity.address)), at: now, into: &output)
        }
        if keys.contains(.signKey) {
            let csrk: SMPKey
            if let configured = configuration.signatureKey { csrk = configured } else { csrk = SMPKey(exactly: try randomBytes(16)) }
            sent.signatureKey = csrk
            send(.signingInformation(SigningInformation(signatureKey: csrk)), at: now, into: &output)
        }
        pairing?.sentKeys = sent
        pairing?.sentOwnKeys = true
    }

    mutating func receiveKey(_ pdu: SMPPDU, at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) {
        guard var p = pairing, let expected = p.keysToReceive.first, expected == pdu.code else { throw Abort(.unspecifiedReason) }
        p.keysToReceive.removeFirst()
        switch pdu {
        case .encryptionInformation(let v): p.receivedKeys.longTermKey = v.longTermKey
        case .centralIdentification(let v):
            p.receivedKeys.ediv = v.ediv
            p.receivedKeys.rand = v.rand
        case .identityInformation(let v): p.receivedKeys.identityResolvingKey = v.identityResolvingKey
        case .identityAddressInformation(let v):
            // An identity address is public or static random (the two top bits set).
            guard v.addressTypeOctet <= 0x01, !v.address.isRandom || v.address.address.bytes.0 & 0xC0 == 0xC0 else {
                throw Abort(.invalidParameters)
            }
            p.receivedKeys.identityAddress = v.address
        case .signingInformation(let v): p.receivedKeys.signatureKey = v.signatureKey
        default: throw Abort(.unspecifiedReason)
        }
        pairing = p
        try finishIfDone(at: now, into: &output)
    }

    /// Once the peer's keys are in, the initiator sends its own; then the pairing completes.
    mutating func finishIfDone(at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) {
        guard let p = pairing, p.keysToReceive.isEmpty else { return }
        if role == .initiator { try sendOwnKeys(at: now, into: &output) }
        guard let done = pairing else { return }
        let n = negotiatedKeys
        var linkKey: SMPKey?
        if done.secureConnections, let ltk = done.ltk, n.initiator.union(n.responder).contains(.linkKey) {
            linkKey = try deriveLinkKey(from: ltk, ct2: done.initiatorFeatures.authenticationRequirements.contains(.ct2)
                                        && done.responderFeatures.authenticationRequirements.contains(.ct2))
        }
        let result = PairingResult(
            securityLevel: done.model.isAuthenticated ? .authenticated : .unauthenticated,
            secureConnections: done.secureConnections, associationModel: done.model, keySize: done.keySize,
            bonded: done.initiatorFeatures.authenticationRequirements.contains(.bonding)
                && done.responderFeatures.authenticationRequirements.contains(.bonding),
            longTermKey: done.secureConnections ? done.ltk : nil,
            localKeys: done.sentKeys, peerKeys: done.receivedKeys, linkKey: linkKey)
        pairing = nil
        deadline = nil
        output.events.append(.paired(result))
    }

    /// CTKD from LE to BR/EDR (§2.4.2.4): ILK = h7(SALT "tmp1", LTK) when both support CT2,
    /// else h6(LTK, "tmp1"); the link key is h6(ILK, "lebr").
    func deriveLinkKey(from ltk: SMPKey, ct2: Bool) throws(Abort) -> SMPKey {
        try crypto { () throws(CryptoFailure) in
            let tmp1 = SecurityFunctions.keyID("tmp1")
            let ilk = ct2 ? try SecurityFunctions.h7(salt: tmp1 + [UInt8](repeating: 0, count: 12), w: ltk.bytes)
                          : try SecurityFunctions.h6(w: ltk.bytes, keyID: tmp1)
            return SMPKey(exactly: try SecurityFunctions.h6(w: ilk, keyID: SecurityFunctions.keyID("lebr")))
        }
    }
}
