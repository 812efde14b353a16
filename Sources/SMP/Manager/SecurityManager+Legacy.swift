/// LE legacy pairing phase 2: TK, Mconfirm/Sconfirm with c1, STK with s1 (§2.3.5.2–2.3.5.5).
extension SecurityManager {
    mutating func beginLegacyAuthentication(at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) {
        guard let p = pairing else { return }
        switch p.model {
        case .justWorks:
            pairing?.tk = [UInt8](repeating: 0, count: 16)
        case .passkeyEntry(let roles):
            if let passkey = try beginPasskey(roles, into: &output) { pairing?.tk = Self.tk(passkey) }
        case .numericComparison, .outOfBand:
            throw Abort(.unspecifiedReason)   // not legacy models; negotiate() never picks them here
        }
        if pairing?.tk != nil { try legacyTKReady(at: now, into: &output) }
    }

    /// The TK is known: the initiator sends Mconfirm; the responder sends Sconfirm if Mconfirm came.
    mutating func legacyTKReady(at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) {
        guard let p = pairing, p.tk != nil else { return }
        switch role {
        case .initiator:
            try sendLegacyConfirm(at: now, into: &output)
        case .responder:
            if p.peerConfirm != nil { try sendLegacyConfirm(at: now, into: &output) }
        }
    }

    mutating func legacyConfirm(_ random: [UInt8]) throws(Abort) -> [UInt8] {
        guard let p = pairing, let tk = p.tk else { throw Abort(.unspecifiedReason) }
        return try crypto { () throws(CryptoFailure) in
            try SecurityFunctions.c1(k: tk, r: random, pairingRequest: p.requestPDU, pairingResponse: p.responsePDU,
                                     initiatingAddress: initiatorAddress, respondingAddress: responderAddress)
        }
    }

    mutating func sendLegacyConfirm(at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) {
        let random = try randomBytes(16)
        let confirm = try legacyConfirm(random)
        pairing?.localRandom = random
        pairing?.localConfirm = confirm
        // The initiator now waits for Sconfirm; the responder for Mrand.
        let next: Pairing.Stage = role == .initiator ? .waitingConfirm : .waitingRandom
        pairing?.stage = next
        send(.pairingConfirm(PairingConfirm(confirmValue: confirm)), at: now, into: &output)
    }

    mutating func receiveLegacyConfirm(_ confirm: [UInt8], at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) {
        guard let p = pairing else { return }
        switch role {
        case .initiator:
            // Sconfirm before our Mconfirm is out of order.
            guard let random = p.localRandom, p.localConfirm != nil else { throw Abort(.unspecifiedReason) }
            pairing?.peerConfirm = confirm
            pairing?.stage = .waitingRandom
            send(.pairingRandom(PairingRandom(randomValue: random)), at: now, into: &output)
        case .responder:
            guard p.peerConfirm == nil else { throw Abort(.unspecifiedReason) }
            pairing?.peerConfirm = confirm
            if p.tk != nil { try sendLegacyConfirm(at: now, into: &output) }
        }
    }

    mutating func receiveLegacyRandom(_ random: [UInt8], at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) {
        guard let p = pairing, let peerConfirm = p.peerConfirm, let localRandom = p.localRandom, let tk = p.tk else {
            throw Abort(.unspecifiedReason)
        }
        guard try legacyConfirm(random) == peerConfirm else { throw Abort(.confirmValueFailed) }
        pairing?.peerRandom = random
        // STK = s1(TK, Srand, Mrand).
        let (srand, mrand) = role == .initiator ? (random, localRandom) : (localRandom, random)
        let stk = try crypto { () throws(CryptoFailure) in try SecurityFunctions.s1(k: tk, r1: srand, r2: mrand) }
        let key = Self.masked(stk, to: p.keySize)
        pairing?.linkEncryptionKey = key
        pairing?.stage = .waitingEncryption
        switch role {
        case .initiator:
            output.events.append(.startEncryption(key: key, ediv: 0, rand: 0, keySize: p.keySize))
        case .responder:
            send(.pairingRandom(PairingRandom(randomValue: localRandom)), at: now, into: &output)
        }
    }
}
