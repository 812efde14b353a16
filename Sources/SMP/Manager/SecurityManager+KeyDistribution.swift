import BluetoothCore

/// Phase 3: key distribution over the encrypted link (§3.6), responder first, then the result.
extension SecurityManager {
    /// The negotiated distribution (the Pairing Response's): what this side and the peer hand over.
    func keyDuties(_ n: NegotiatedPairing) -> (mine: KeyDistribution, theirs: KeyDistribution) {
        let initiator = n.responder.initiatorKeyDistribution, responder = n.responder.responderKeyDistribution
        return role == .initiator ? (initiator, responder) : (responder, initiator)
    }

    /// The PDUs that carry `keys`, in the order they are sent (§3.6.1).
    func codes(for keys: KeyDistribution, secureConnections: Bool) -> [SMPCode] {
        var out: [SMPCode] = []
        if keys.contains(.encKey) && !secureConnections { out += [.encryptionInformation, .centralIdentification] }
        if keys.contains(.idKey) { out += [.identityInformation, .identityAddressInformation] }
        if keys.contains(.signKey) { out.append(.signingInformation) }
        return out
    }

    /// The link is encrypted: the responder sends its keys; both wait for the peer's.
    /// Returns the next step, or nil when nothing is expected and the pairing completed.
    mutating func beginKeyDistribution(_ n: NegotiatedPairing, _ key: LinkKey, at now: MonotonicTime,
                                       into output: inout SecurityManagerOutput) throws(Abort) -> Pairing? {
        let duties = keyDuties(n)
        var exchange = KeyExchange(expected: codes(for: duties.theirs, secureConnections: key.isSecureConnections))
        if role == .responder { exchange.sent = try sendOwnKeys(duties.mine, n, key, at: now, into: &output) }
        return try finishIfDone(n, key, exchange, at: now, into: &output)
    }

    /// Sends our keys of `keys` and returns what was sent.
    mutating func sendOwnKeys(_ keys: KeyDistribution, _ n: NegotiatedPairing, _ key: LinkKey, at now: MonotonicTime,
                              into output: inout SecurityManagerOutput) throws(Abort) -> DistributedKeys {
        var sent = DistributedKeys()
        if keys.contains(.encKey) && !key.isSecureConnections {
            let ltk = Self.masked(try randomBytes(16), to: n.keySize)
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
        return sent
    }

    /// One key PDU: it must be the next one expected.
    mutating func receiveKey(_ pdu: SMPPDU, _ n: NegotiatedPairing, _ key: LinkKey, _ exchange: KeyExchange,
                             at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) -> Pairing? {
        var exchange = exchange
        guard exchange.expected.first == pdu.code else { throw Abort(.unspecifiedReason) }
        exchange.expected.removeFirst()
        switch pdu {
        case .encryptionInformation(let v): exchange.received.longTermKey = v.longTermKey
        case .centralIdentification(let v):
            exchange.received.ediv = v.ediv
            exchange.received.rand = v.rand
        case .identityInformation(let v): exchange.received.identityResolvingKey = v.identityResolvingKey
        case .identityAddressInformation(let v):
            // An identity address is public or static random (the two top bits set).
            guard v.addressTypeOctet <= 0x01, !v.address.isRandom || v.address.address.bytes.0 & 0xC0 == 0xC0 else {
                throw Abort(.invalidParameters)
            }
            exchange.received.identityAddress = v.address
        case .signingInformation(let v): exchange.received.signatureKey = v.signatureKey
        default: throw Abort(.unspecifiedReason)
        }
        return try finishIfDone(n, key, exchange, at: now, into: &output)
    }

    /// Once the peer's keys are in, the initiator sends its own; then the pairing completes
    /// (nil: no pairing runs any more).
    mutating func finishIfDone(_ n: NegotiatedPairing, _ key: LinkKey, _ exchange: KeyExchange, at now: MonotonicTime,
                               into output: inout SecurityManagerOutput) throws(Abort) -> Pairing? {
        guard exchange.expected.isEmpty else { return .distributingKeys(n, key, exchange) }
        var sent = exchange.sent
        if role == .initiator { sent = try sendOwnKeys(keyDuties(n).mine, n, key, at: now, into: &output) }
        let i = n.initiator.authenticationRequirements, r = n.responder.authenticationRequirements
        var ltk: SMPKey?
        var linkKey: SMPKey?
        if case .longTerm(let k) = key {
            ltk = k
            if n.responder.initiatorKeyDistribution.union(n.responder.responderKeyDistribution).contains(.linkKey) {
                linkKey = try deriveLinkKey(from: k, ct2: i.contains(.ct2) && r.contains(.ct2))
            }
        }
        let result = PairingResult(
            securityLevel: n.model.isAuthenticated ? .authenticated : .unauthenticated,
            secureConnections: key.isSecureConnections, associationModel: n.model, keySize: n.keySize,
            bonded: i.contains(.bonding) && r.contains(.bonding),
            longTermKey: ltk, localKeys: sent, peerKeys: exchange.received, linkKey: linkKey)
        deadline = nil
        output.events.append(.paired(result))
        return nil
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
