/// LE legacy pairing phase 2: TK, Mconfirm/Sconfirm with c1, STK with s1 (§2.3.5.2–2.3.5.5).
extension SecurityManager {
    /// Phase 2's first step: the TK of Just Works, a passkey shown, or the user asked for one.
    mutating func beginLegacyAuthentication(_ n: NegotiatedPairing, _ commands: PairingCommands, at now: MonotonicTime,
                                            into output: inout SecurityManagerOutput) throws(Abort) -> LegacyStep {
        let tk: [UInt8]
        switch n.model {
        case .justWorks:
            tk = [UInt8](repeating: 0, count: 16)
        case .passkeyEntry(let roles):
            guard let passkey = try beginPasskey(roles, into: &output) else { return .awaitingPasskey(peerConfirm: nil) }
            tk = Self.tk(passkey)
        case .numericComparison, .outOfBand:
            throw Abort(.unspecifiedReason)   // not legacy models; negotiate() never picks them here
        }
        return try legacyTKKnown(tk, peerConfirm: nil, commands, at: now, into: &output)
    }

    /// The TK is known: the initiator sends Mconfirm; the responder sends Sconfirm once Mconfirm came.
    mutating func legacyTKKnown(_ tk: [UInt8], peerConfirm: [UInt8]?, _ commands: PairingCommands, at now: MonotonicTime,
                                into output: inout SecurityManagerOutput) throws(Abort) -> LegacyStep {
        switch (role, peerConfirm) {
        case (.initiator, _):
            return .confirmSent(tk: tk, random: try sendLegacyConfirm(tk, commands, at: now, into: &output))
        case (.responder, nil):
            return .awaitingConfirm(tk: tk)
        case (.responder, let mconfirm?):
            let random = try sendLegacyConfirm(tk, commands, at: now, into: &output)
            return .awaitingRandom(tk: tk, random: random, peerConfirm: mconfirm)
        }
    }

    func legacyConfirm(_ tk: [UInt8], _ random: [UInt8], _ commands: PairingCommands) throws(Abort) -> [UInt8] {
        try crypto { () throws(CryptoFailure) in
            try SecurityFunctions.c1(k: tk, r: random, pairingRequest: commands.request, pairingResponse: commands.response,
                                     initiatingAddress: initiatorAddress, respondingAddress: responderAddress)
        }
    }

    /// Draws our random, sends the confirm value made with it, and returns the random.
    mutating func sendLegacyConfirm(_ tk: [UInt8], _ commands: PairingCommands, at now: MonotonicTime,
                                    into output: inout SecurityManagerOutput) throws(Abort) -> [UInt8] {
        let random = try randomBytes(16)
        let confirm = try legacyConfirm(tk, random, commands)
        send(.pairingConfirm(PairingConfirm(confirmValue: confirm)), at: now, into: &output)
        return random
    }

    mutating func receiveLegacyConfirm(_ confirm: [UInt8], in step: LegacyStep, _ commands: PairingCommands,
                                       at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) -> LegacyStep {
        switch (role, step) {
        case (.initiator, .confirmSent(let tk, let random)):
            send(.pairingRandom(PairingRandom(randomValue: random)), at: now, into: &output)
            return .awaitingRandom(tk: tk, random: random, peerConfirm: confirm)
        case (.responder, .awaitingPasskey(peerConfirm: nil)):
            return .awaitingPasskey(peerConfirm: confirm)
        case (.responder, .awaitingConfirm(let tk)):
            return try legacyTKKnown(tk, peerConfirm: confirm, commands, at: now, into: &output)
        default:
            // Sconfirm before our Mconfirm, a second Mconfirm, or a confirm where a random is due.
            throw Abort(.unspecifiedReason)
        }
    }

    mutating func receiveLegacyRandom(_ random: [UInt8], in step: LegacyStep, _ n: NegotiatedPairing,
                                      _ commands: PairingCommands, at now: MonotonicTime,
                                      into output: inout SecurityManagerOutput) throws(Abort) -> Pairing {
        guard case .awaitingRandom(let tk, let localRandom, let peerConfirm) = step else { throw Abort(.unspecifiedReason) }
        guard try legacyConfirm(tk, random, commands) == peerConfirm else { throw Abort(.confirmValueFailed) }
        // STK = s1(TK, Srand, Mrand).
        let (srand, mrand) = role == .initiator ? (random, localRandom) : (localRandom, random)
        let stk = try crypto { () throws(CryptoFailure) in try SecurityFunctions.s1(k: tk, r1: srand, r2: mrand) }
        let key = Self.masked(stk, to: n.keySize)
        switch role {
        case .initiator:
            output.events.append(.startEncryption(key: key, ediv: 0, rand: 0, keySize: n.keySize))
        case .responder:
            send(.pairingRandom(PairingRandom(randomValue: localRandom)), at: now, into: &output)
        }
        return .encrypting(n, .shortTerm(key))
    }
}
