import BluetoothCrypto

/// LE Secure Connections phase 2 (§2.3.5.6): public keys, authentication stage 1 for each
/// model (f4, g2), and stage 2 (f5, f6).
extension SecurityManager {
    /// Our key pair for this pairing: the one our OOB data was made with, or a fresh one.
    mutating func makeKeyPair() throws(Abort) -> P256.KeyPair {
        if let oob = localOOB { return oob.keyPair }
        do { return try random.makeKeyPair() } catch { throw Abort(.unspecifiedReason) }
    }

    mutating func sendPublicKey(_ keyPair: P256.KeyPair, at now: MonotonicTime, into output: inout SecurityManagerOutput) {
        send(.pairingPublicKey(PairingPublicKey(x: keyPair.publicKey.x.reversed(), y: keyPair.publicKey.y.reversed())),
             at: now, into: &output)
    }

    mutating func receivePublicKey(_ key: PairingPublicKey, in step: SecureConnectionsStep, _ n: NegotiatedPairing,
                                   at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) -> SecureConnectionsStep {
        let keyPair: P256.KeyPair
        switch (role, step) {
        case (.initiator, .publicKeySent(let ours)): keyPair = ours
        case (.responder, .awaitingPublicKey): keyPair = try makeKeyPair()
        default: throw Abort(.unspecifiedReason)
        }
        // The peer's point is validated before any ECDH (CVE-2018-5383). Core 6.1 names the
        // reason for a pairing aborted in or right after the public key exchange: DHKey
        // Check Failed. A peer that reflects our own key is refused the same way.
        let dhKey: [UInt8]
        do {
            let point = try P256.PublicKey(x: key.x.reversed(), y: key.y.reversed())
            guard point != keyPair.publicKey else { throw Abort(.dhKeyCheckFailed) }
            dhKey = try P256.sharedSecret(privateKey: keyPair.privateKey, peer: point).reversed()
        } catch {
            throw Abort(.dhKeyCheckFailed)
        }
        let localX = Array(keyPair.publicKey.x.reversed())
        let keys = role == .initiator ? PublicKeys(pkax: localX, pkbx: key.x, dhKey: dhKey)
                                      : PublicKeys(pkax: key.x, pkbx: localX, dhKey: dhKey)
        // The responder answers with its own key only once the initiator's is known good.
        if role == .responder { sendPublicKey(keyPair, at: now, into: &output) }
        switch n.model {
        case .justWorks, .numericComparison:
            guard role == .responder else { return .awaitingConfirm(keys) }
            let nb = try sendResponderConfirm(keys, z: 0, at: now, into: &output)
            return .awaitingRandom(keys, nonce: nb, peerConfirm: nil)
        case .passkeyEntry(let roles):
            guard let passkey = try beginPasskey(roles, into: &output) else {
                return .passkey(keys, .awaitingPasskey(peerConfirm: nil))
            }
            let round = PasskeyRound(passkey: passkey, index: 0)
            return .passkey(keys, try passkeyRoundReady(round, peerConfirm: nil, keys, at: now, into: &output))
        case .outOfBand:
            // The side holding the peer's OOB data checks it against the key just received.
            if let oob = peerOOB {
                let c = try crypto { () throws(CryptoFailure) in try SecurityFunctions.f4(u: key.x, v: key.x, x: oob.random, z: 0) }
                guard c == oob.confirm else { throw Abort(.confirmValueFailed) }
            }
            let nonce = try randomBytes(16)
            if role == .initiator { send(.pairingRandom(PairingRandom(randomValue: nonce)), at: now, into: &output) }
            return .awaitingRandom(keys, nonce: nonce, peerConfirm: nil)
        }
    }

    /// The responder's Cb = f4(PKbx, PKax, Nb, z) with a fresh Nb, which it returns.
    mutating func sendResponderConfirm(_ keys: PublicKeys, z: UInt8, at now: MonotonicTime,
                                       into output: inout SecurityManagerOutput) throws(Abort) -> [UInt8] {
        let nb = try randomBytes(16)
        let cb = try crypto { () throws(CryptoFailure) in try SecurityFunctions.f4(u: keys.pkbx, v: keys.pkax, x: nb, z: z) }
        send(.pairingConfirm(PairingConfirm(confirmValue: cb)), at: now, into: &output)
        return nb
    }

    /// A Passkey Entry round can start: the initiator sends Cai; the responder answers a Cai that came.
    mutating func passkeyRoundReady(_ round: PasskeyRound, peerConfirm: [UInt8]?, _ keys: PublicKeys, at now: MonotonicTime,
                                    into output: inout SecurityManagerOutput) throws(Abort) -> PasskeyStep {
        switch role {
        case .initiator:
            let na = try randomBytes(16)
            let ca = try crypto { () throws(CryptoFailure) in
                try SecurityFunctions.f4(u: keys.pkax, v: keys.pkbx, x: na, z: round.z)
            }
            send(.pairingConfirm(PairingConfirm(confirmValue: ca)), at: now, into: &output)
            return .confirmSent(round, nonce: na)
        case .responder:
            guard let cai = peerConfirm else { return .awaitingConfirm(round) }
            let nb = try sendResponderConfirm(keys, z: round.z, at: now, into: &output)
            return .awaitingRandom(round, nonce: nb, peerConfirm: cai)
        }
    }

    mutating func receiveSecureConfirm(_ confirm: [UInt8], in step: SecureConnectionsStep, at now: MonotonicTime,
                                       into output: inout SecurityManagerOutput) throws(Abort) -> SecureConnectionsStep {
        switch (role, step) {
        case (.initiator, .awaitingConfirm(let keys)):
            // Cb came: send Na.
            let na = try randomBytes(16)
            send(.pairingRandom(PairingRandom(randomValue: na)), at: now, into: &output)
            return .awaitingRandom(keys, nonce: na, peerConfirm: confirm)
        case (.initiator, .passkey(let keys, .confirmSent(let round, let na))):
            send(.pairingRandom(PairingRandom(randomValue: na)), at: now, into: &output)
            return .passkey(keys, .awaitingRandom(round, nonce: na, peerConfirm: confirm))
        case (.responder, .passkey(let keys, .awaitingPasskey(peerConfirm: nil))):
            return .passkey(keys, .awaitingPasskey(peerConfirm: confirm))
        case (.responder, .passkey(let keys, .awaitingConfirm(let round))):
            return .passkey(keys, try passkeyRoundReady(round, peerConfirm: confirm, keys, at: now, into: &output))
        default:
            // Cbi before our Cai, a second Cai, or a confirm where another PDU is due.
            throw Abort(.unspecifiedReason)
        }
    }

    mutating func receiveSecureRandom(_ random: [UInt8], in step: SecureConnectionsStep, _ n: NegotiatedPairing,
                                      at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) -> SecureConnectionsStep {
        switch (role, step) {
        case (.initiator, .awaitingRandom(let keys, let na, let cb)):
            if let cb {
                let expected = try crypto { () throws(CryptoFailure) in
                    try SecurityFunctions.f4(u: keys.pkbx, v: keys.pkax, x: random, z: 0)
                }
                guard expected == cb else { throw Abort(.confirmValueFailed) }
            }
            let inputs = checkInputs(keys, na: na, nb: random, n)
            if asksUser(n.model) {
                try askUser(keys, na: na, nb: random, n.model, into: &output)
                return .awaitingUser(inputs, peerCheck: nil)
            }
            return try sendInitiatorCheck(inputs, n, at: now, into: &output)
        case (.responder, .awaitingRandom(let keys, let nb, _)):
            send(.pairingRandom(PairingRandom(randomValue: nb)), at: now, into: &output)
            let inputs = checkInputs(keys, na: random, nb: nb, n)
            if asksUser(n.model) {
                try askUser(keys, na: random, nb: nb, n.model, into: &output)
                return .awaitingUser(inputs, peerCheck: nil)
            }
            return .awaitingCheck(try dhKeyChecks(inputs, n))
        case (_, .passkey(let keys, .awaitingRandom(let round, let local, let peerConfirm))):
            // Check the peer's commitment for this round: Cai = f4(PKax, PKbx, Nai, rai), Cbi likewise.
            let expected = try crypto { () throws(CryptoFailure) in
                role == .responder ? try SecurityFunctions.f4(u: keys.pkax, v: keys.pkbx, x: random, z: round.z)
                                   : try SecurityFunctions.f4(u: keys.pkbx, v: keys.pkax, x: random, z: round.z)
            }
            guard expected == peerConfirm else { throw Abort(.confirmValueFailed) }
            if role == .responder { send(.pairingRandom(PairingRandom(randomValue: local)), at: now, into: &output) }
            guard round.index + 1 == 20 else {
                let next = PasskeyRound(passkey: round.passkey, index: round.index + 1)
                return .passkey(keys, try passkeyRoundReady(next, peerConfirm: nil, keys, at: now, into: &output))
            }
            let (na, nb) = role == .initiator ? (local, random) : (random, local)
            let inputs = checkInputs(keys, na: na, nb: nb, n, passkey: round.passkey)
            guard role == .initiator else { return .awaitingCheck(try dhKeyChecks(inputs, n)) }
            return try sendInitiatorCheck(inputs, n, at: now, into: &output)
        default:
            throw Abort(.unspecifiedReason)
        }
    }

    /// Asks the user to confirm: the six digits of Numeric Comparison (g2), or Just Works.
    func askUser(_ keys: PublicKeys, na: [UInt8], nb: [UInt8], _ model: AssociationModel,
                 into output: inout SecurityManagerOutput) throws(Abort) {
        if model == .justWorks {
            output.events.append(.confirmJustWorks)
            return
        }
        let value = try crypto { () throws(CryptoFailure) in try SecurityFunctions.g2(u: keys.pkax, v: keys.pkbx, x: na, y: nb) }
        output.events.append(.confirmNumericComparison(value % 1_000_000))
    }

    /// Whether stage 1 ends with a question for the user: the numbers of Numeric
    /// Comparison, or accepting Just Works when so configured.
    func asksUser(_ model: AssociationModel) -> Bool {
        model == .numericComparison || (model == .justWorks && configuration.confirmsJustWorks)
    }

    /// The user agreed: the initiator sends Ea; the responder checks an Ea that came, or waits for it.
    mutating func userConfirmed(_ inputs: CheckInputs, peerCheck: [UInt8]?, _ n: NegotiatedPairing, at now: MonotonicTime,
                                into output: inout SecurityManagerOutput) throws(Abort) -> Pairing {
        switch role {
        case .initiator:
            return .secureConnections(n, try sendInitiatorCheck(inputs, n, at: now, into: &output))
        case .responder:
            let checks = try dhKeyChecks(inputs, n)
            guard let ea = peerCheck else { return .secureConnections(n, .awaitingCheck(checks)) }
            return try responderChecks(ea, checks, n, at: now, into: &output)
        }
    }

    /// Stage 2's inputs; ra and rb of f6 for this model (§2.3.5.6.5).
    func checkInputs(_ keys: PublicKeys, na: [UInt8], nb: [UInt8], _ n: NegotiatedPairing,
                     passkey: UInt32? = nil) -> CheckInputs {
        let zero = [UInt8](repeating: 0, count: 16)
        var (ra, rb) = (zero, zero)
        if let passkey {
            (ra, rb) = (Self.tk(passkey), Self.tk(passkey))
        } else if n.model == .outOfBand {
            // Our r counts if the peer said it holds our data; the peer's r if we hold theirs.
            let peerFlag = (role == .initiator ? n.responder : n.initiator).oobDataFlag == 0x01
            let ours = peerFlag ? (localOOB?.data.random ?? zero) : zero
            let theirs = peerOOB?.random ?? zero
            (ra, rb) = role == .initiator ? (ours, theirs) : (theirs, ours)
        }
        return CheckInputs(dhKey: keys.dhKey, na: na, nb: nb, ra: ra, rb: rb)
    }

    /// Stage 2: MacKey and LTK from f5, and Ea/Eb from f6.
    func dhKeyChecks(_ s: CheckInputs, _ n: NegotiatedPairing) throws(Abort) -> DHKeyChecks {
        let a = initiatorAddress.f5Bytes, b = responderAddress.f5Bytes
        return try crypto { () throws(CryptoFailure) in
            let keys = try SecurityFunctions.f5(w: s.dhKey, n1: s.na, n2: s.nb, a1: a, a2: b)
            let ea = try SecurityFunctions.f6(w: keys.macKey, n1: s.na, n2: s.nb, r: s.rb, ioCap: n.initiator.f6IOCap, a1: a, a2: b)
            let eb = try SecurityFunctions.f6(w: keys.macKey, n1: s.nb, n2: s.na, r: s.ra, ioCap: n.responder.f6IOCap, a1: b, a2: a)
            return DHKeyChecks(ea: ea, eb: eb, ltk: Self.masked(keys.ltk, to: n.keySize))
        }
    }

    mutating func sendInitiatorCheck(_ inputs: CheckInputs, _ n: NegotiatedPairing, at now: MonotonicTime,
                                     into output: inout SecurityManagerOutput) throws(Abort) -> SecureConnectionsStep {
        let checks = try dhKeyChecks(inputs, n)
        send(.pairingDHKeyCheck(PairingDHKeyCheck(checkValue: checks.ea)), at: now, into: &output)
        return .checkSent(checks)
    }

    /// The responder checks Ea and answers with Eb; the link then encrypts with the LTK.
    mutating func responderChecks(_ ea: [UInt8], _ checks: DHKeyChecks, _ n: NegotiatedPairing, at now: MonotonicTime,
                                  into output: inout SecurityManagerOutput) throws(Abort) -> Pairing {
        guard ea == checks.ea else { throw Abort(.dhKeyCheckFailed) }
        send(.pairingDHKeyCheck(PairingDHKeyCheck(checkValue: checks.eb)), at: now, into: &output)
        return .encrypting(n, .longTerm(checks.ltk))
    }

    mutating func receiveDHKeyCheck(_ check: [UInt8], in step: SecureConnectionsStep, _ n: NegotiatedPairing,
                                    at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) -> Pairing {
        switch (role, step) {
        case (.responder, .awaitingUser(let inputs, _)):
            // Checked once the user confirms.
            return .secureConnections(n, .awaitingUser(inputs, peerCheck: check))
        case (.responder, .awaitingCheck(let checks)):
            return try responderChecks(check, checks, n, at: now, into: &output)
        case (.initiator, .checkSent(let checks)):
            guard check == checks.eb else { throw Abort(.dhKeyCheckFailed) }
            output.events.append(.startEncryption(key: checks.ltk, ediv: 0, rand: 0, keySize: n.keySize))
            return .encrypting(n, .longTerm(checks.ltk))
        default:
            // Eb before our Ea, or a check where stage 1 is not done.
            throw Abort(.unspecifiedReason)
        }
    }
}
