import BluetoothCrypto

/// LE Secure Connections phase 2 (§2.3.5.6): public keys, authentication stage 1 for each
/// model (f4, g2), and stage 2 (f5, f6).
extension SecurityManager {
    /// Our key pair for this pairing: the one our OOB data was made with, or a fresh one.
    mutating func ensureKeyPair() throws(Abort) -> P256.KeyPair {
        if let kp = pairing?.keyPair { return kp }
        let keyPair: P256.KeyPair
        if let oob = localOOB {
            keyPair = oob.keyPair
        } else {
            do { keyPair = try random.makeKeyPair() } catch { throw Abort(.unspecifiedReason) }
        }
        pairing?.keyPair = keyPair
        return keyPair
    }

    mutating func sendPublicKey(at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) {
        let keyPair = try ensureKeyPair()
        send(.pairingPublicKey(PairingPublicKey(x: keyPair.publicKey.x.reversed(), y: keyPair.publicKey.y.reversed())),
             at: now, into: &output)
    }

    /// Our public key's x coordinate and the peer's, least significant first.
    var publicKeyX: (local: [UInt8], peer: [UInt8])? {
        guard let p = pairing, let kp = p.keyPair, let peer = p.peerPublicKey else { return nil }
        return (kp.publicKey.x.reversed(), peer.x)
    }

    /// PKax and PKbx.
    var initiatorAndResponderX: (pkax: [UInt8], pkbx: [UInt8])? {
        guard let x = publicKeyX else { return nil }
        return role == .initiator ? (x.local, x.peer) : (x.peer, x.local)
    }

    mutating func receivePublicKey(_ key: PairingPublicKey, at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) {
        let keyPair = try ensureKeyPair()
        guard let p = pairing else { throw Abort(.unspecifiedReason) }
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
        pairing?.peerPublicKey = key
        pairing?.dhKey = dhKey
        // The responder answers with its own key only once the initiator's is known good.
        if role == .responder { try sendPublicKey(at: now, into: &output) }
        switch p.model {
        case .justWorks, .numericComparison:
            if role == .responder {
                try sendResponderConfirm(rbi: 0, at: now, into: &output)
                pairing?.stage = .waitingRandom
            } else {
                pairing?.stage = .waitingConfirm
            }
        case .passkeyEntry(let roles):
            pairing?.stage = .waitingConfirm
            if let passkey = try beginPasskey(roles, into: &output) {
                pairing?.passkey = passkey
                try secureConnectionsPasskeyReady(at: now, into: &output)
            }
        case .outOfBand:
            // The side holding the peer's OOB data checks it against the key just received.
            if let oob = peerOOB {
                let c = try crypto { () throws(CryptoFailure) in try SecurityFunctions.f4(u: key.x, v: key.x, x: oob.random, z: 0) }
                guard c == oob.confirm else { throw Abort(.confirmValueFailed) }
            }
            pairing?.stage = .waitingRandom
            let nonce = try randomBytes(16)
            pairing?.localRandom = nonce
            if role == .initiator { send(.pairingRandom(PairingRandom(randomValue: nonce)), at: now, into: &output) }
        }
    }

    /// The responder's Cb = f4(PKbx, PKax, Nb, z) with a fresh Nb.
    mutating func sendResponderConfirm(rbi: UInt8, at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) {
        guard let x = initiatorAndResponderX else { throw Abort(.unspecifiedReason) }
        let nb = try randomBytes(16)
        let cb = try crypto { () throws(CryptoFailure) in try SecurityFunctions.f4(u: x.pkbx, v: x.pkax, x: nb, z: rbi) }
        pairing?.localRandom = nb
        pairing?.localConfirm = cb
        send(.pairingConfirm(PairingConfirm(confirmValue: cb)), at: now, into: &output)
    }

    /// The bit of the passkey for the current round, as f4's z: 0x80 | bit (§2.3.5.6.3).
    var passkeyBit: UInt8? {
        guard let p = pairing, let passkey = p.passkey, p.round < 20 else { return nil }
        return 0x80 | UInt8(truncatingIfNeeded: (passkey >> UInt32(p.round)) & 1)
    }

    /// Passkey known: the initiator opens the round; the responder answers a Cai that came.
    mutating func secureConnectionsPasskeyReady(at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) {
        guard let p = pairing, p.stage == .waitingConfirm, let z = passkeyBit, let x = initiatorAndResponderX else { return }
        switch role {
        case .initiator:
            guard p.localConfirm == nil else { return }
            let na = try randomBytes(16)
            let ca = try crypto { () throws(CryptoFailure) in try SecurityFunctions.f4(u: x.pkax, v: x.pkbx, x: na, z: z) }
            pairing?.localRandom = na
            pairing?.localConfirm = ca
            send(.pairingConfirm(PairingConfirm(confirmValue: ca)), at: now, into: &output)
        case .responder:
            guard p.peerConfirm != nil else { return }
            try sendResponderConfirm(rbi: z, at: now, into: &output)
            pairing?.stage = .waitingRandom
        }
    }

    mutating func receiveSecureConfirm(_ confirm: [UInt8], at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) {
        guard let p = pairing else { return }
        switch (p.model, role) {
        case (.justWorks, .initiator), (.numericComparison, .initiator):
            // Cb came: send Na.
            let na = try randomBytes(16)
            pairing?.peerConfirm = confirm
            pairing?.localRandom = na
            pairing?.stage = .waitingRandom
            send(.pairingRandom(PairingRandom(randomValue: na)), at: now, into: &output)
        case (.passkeyEntry, .initiator):
            // Cbi before our Cai is out of order.
            guard let na = p.localRandom, p.localConfirm != nil else { throw Abort(.unspecifiedReason) }
            pairing?.peerConfirm = confirm
            pairing?.stage = .waitingRandom
            send(.pairingRandom(PairingRandom(randomValue: na)), at: now, into: &output)
        case (.passkeyEntry, .responder):
            guard p.peerConfirm == nil else { throw Abort(.unspecifiedReason) }
            pairing?.peerConfirm = confirm
            try secureConnectionsPasskeyReady(at: now, into: &output)
        default:
            throw Abort(.unspecifiedReason)
        }
    }

    mutating func receiveSecureRandom(_ random: [UInt8], at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) {
        guard let p = pairing, let x = initiatorAndResponderX else { throw Abort(.unspecifiedReason) }
        switch (p.model, role) {
        case (.justWorks, .responder), (.numericComparison, .responder), (.outOfBand, .responder):
            guard let nb = p.localRandom else { throw Abort(.unspecifiedReason) }
            pairing?.na = random
            pairing?.nb = nb
            pairing?.stage = .waitingDHKeyCheck
            send(.pairingRandom(PairingRandom(randomValue: nb)), at: now, into: &output)
            if asksUser(p) { try askNumericComparison(into: &output) }
        case (.justWorks, .initiator), (.numericComparison, .initiator):
            guard let cb = p.peerConfirm, let na = p.localRandom else { throw Abort(.unspecifiedReason) }
            let expected = try crypto { () throws(CryptoFailure) in try SecurityFunctions.f4(u: x.pkbx, v: x.pkax, x: random, z: 0) }
            guard expected == cb else { throw Abort(.confirmValueFailed) }
            pairing?.na = na
            pairing?.nb = random
            pairing?.stage = .waitingDHKeyCheck
            if asksUser(p) {
                try askNumericComparison(into: &output)
            } else {
                try sendInitiatorCheck(at: now, into: &output)
            }
        case (.outOfBand, .initiator):
            guard let na = p.localRandom else { throw Abort(.unspecifiedReason) }
            pairing?.na = na
            pairing?.nb = random
            pairing?.stage = .waitingDHKeyCheck
            try sendInitiatorCheck(at: now, into: &output)
        case (.passkeyEntry, _):
            guard let z = passkeyBit, let peerConfirm = p.peerConfirm, let local = p.localRandom else { throw Abort(.unspecifiedReason) }
            // Check the peer's commitment for this round: Cai = f4(PKax, PKbx, Nai, rai), Cbi likewise.
            let expected = try crypto { () throws(CryptoFailure) in
                role == .responder ? try SecurityFunctions.f4(u: x.pkax, v: x.pkbx, x: random, z: z)
                                   : try SecurityFunctions.f4(u: x.pkbx, v: x.pkax, x: random, z: z)
            }
            guard expected == peerConfirm else { throw Abort(.confirmValueFailed) }
            if role == .responder { send(.pairingRandom(PairingRandom(randomValue: local)), at: now, into: &output) }
            let round = p.round + 1
            pairing?.round = round
            pairing?.peerConfirm = nil
            pairing?.localConfirm = nil
            pairing?.localRandom = nil
            if round == 20 {
                let initiator = role == .initiator
                pairing?.na = initiator ? local : random
                pairing?.nb = initiator ? random : local
                pairing?.stage = .waitingDHKeyCheck
                if role == .initiator { try sendInitiatorCheck(at: now, into: &output) }
            } else {
                pairing?.stage = .waitingConfirm
                if role == .initiator { try secureConnectionsPasskeyReady(at: now, into: &output) }
            }
        }
    }

    mutating func askNumericComparison(into output: inout SecurityManagerOutput) throws(Abort) {
        guard let p = pairing, let x = initiatorAndResponderX, let na = p.na, let nb = p.nb else { throw Abort(.unspecifiedReason) }
        pairing?.awaiting = .numericComparison
        if p.model == .justWorks {
            output.events.append(.confirmJustWorks)
            return
        }
        let value = try crypto { () throws(CryptoFailure) in try SecurityFunctions.g2(u: x.pkax, v: x.pkbx, x: na, y: nb) }
        output.events.append(.confirmNumericComparison(value % 1_000_000))
    }

    /// Whether stage 1 ends with a question for the user: the numbers of Numeric
    /// Comparison, or accepting Just Works when so configured.
    func asksUser(_ p: Pairing) -> Bool {
        p.model == .numericComparison || (p.model == .justWorks && configuration.confirmsJustWorks)
    }

    mutating func numericComparisonConfirmed(at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) {
        pairing?.numericComparisonConfirmed = true
        switch role {
        case .initiator:
            try sendInitiatorCheck(at: now, into: &output)
        case .responder:
            if let ea = pairing?.pendingPeerCheck { try receiveDHKeyCheck(ea, at: now, into: &output) }
        }
    }

    /// ra and rb of f6 for this pairing (§2.3.5.6.5).
    var checkRandoms: (ra: [UInt8], rb: [UInt8])? {
        guard let p = pairing else { return nil }
        let zero = [UInt8](repeating: 0, count: 16)
        switch p.model {
        case .justWorks, .numericComparison: return (zero, zero)
        case .passkeyEntry:
            guard let passkey = p.passkey else { return nil }
            return (Self.tk(passkey), Self.tk(passkey))
        case .outOfBand:
            // Our r counts if the peer said it holds our data; the peer's r if we hold theirs.
            let peerFlag = (role == .initiator ? p.responderFeatures : p.initiatorFeatures).oobDataFlag == 0x01
            let ours = peerFlag ? (localOOB?.data.random ?? zero) : zero
            let theirs = peerOOB?.random ?? zero
            return role == .initiator ? (ours, theirs) : (theirs, ours)
        }
    }

    /// Stage 2: MacKey and LTK from f5, and Ea/Eb from f6.
    mutating func stage2() throws(Abort) -> (ea: [UInt8], eb: [UInt8], ltk: [UInt8]) {
        guard let p = pairing, let dhKey = p.dhKey, let na = p.na, let nb = p.nb, let r = checkRandoms else {
            throw Abort(.unspecifiedReason)
        }
        let a = initiatorAddress.f5Bytes, b = responderAddress.f5Bytes
        return try crypto { () throws(CryptoFailure) in
            let keys = try SecurityFunctions.f5(w: dhKey, n1: na, n2: nb, a1: a, a2: b)
            let ea = try SecurityFunctions.f6(w: keys.macKey, n1: na, n2: nb, r: r.rb, ioCap: p.initiatorFeatures.f6IOCap, a1: a, a2: b)
            let eb = try SecurityFunctions.f6(w: keys.macKey, n1: nb, n2: na, r: r.ra, ioCap: p.responderFeatures.f6IOCap, a1: b, a2: a)
            return (ea, eb, keys.ltk)
        }
    }

    mutating func sendInitiatorCheck(at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) {
        guard let p = pairing, !p.sentCheck else { return }
        let s = try stage2()
        pairing?.sentCheck = true
        send(.pairingDHKeyCheck(PairingDHKeyCheck(checkValue: s.ea)), at: now, into: &output)
    }

    mutating func receiveDHKeyCheck(_ check: [UInt8], at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) {
        guard let p = pairing else { return }
        let s = try stage2()
        switch role {
        case .responder:
            if asksUser(p) && !p.numericComparisonConfirmed {
                pairing?.pendingPeerCheck = check   // checked once the user confirms
                return
            }
            guard check == s.ea else { throw Abort(.dhKeyCheckFailed) }
            let key = Self.masked(s.ltk, to: p.keySize)
            pairing?.ltk = key
            pairing?.linkEncryptionKey = key
            pairing?.stage = .waitingEncryption
            send(.pairingDHKeyCheck(PairingDHKeyCheck(checkValue: s.eb)), at: now, into: &output)
        case .initiator:
            // Eb before our Ea is out of order.
            guard p.sentCheck else { throw Abort(.unspecifiedReason) }
            guard check == s.eb else { throw Abort(.dhKeyCheckFailed) }
            let key = Self.masked(s.ltk, to: p.keySize)
            pairing?.ltk = key
            pairing?.linkEncryptionKey = key
            pairing?.stage = .waitingEncryption
            output.events.append(.startEncryption(key: key, ediv: 0, rand: 0, keySize: p.keySize))
        }
    }
}
