/// Which PDU goes where, and what is unexpected (Vol 3 Part H §3.3–3.6). A PDU the role
/// never takes is Command Not Supported; one the current step does not take is Unspecified
/// Reason. Every transition is a match over the step and the input.
extension SecurityManager {
    mutating func handle(_ pdu: SMPPDU, at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) {
        switch pdu {
        case .pairingFailed(let failed):
            // The peer ended it; nothing is sent back.
            guard pairing != nil else { return }
            pairing = nil
            deadline = nil
            output.events.append(.failed(.remote(failed.reason)))
        case .pairingRequest(let request):
            // A central does not take Pairing Requests; a peripheral takes one per pairing.
            guard role == .responder else { throw Abort(.commandNotSupported) }
            guard pairing == nil else { throw Abort(.unspecifiedReason) }
            pairing = try receivePairingRequest(request, bytes: pdu.encoded, at: now, into: &output)
        case .securityRequest(let request):
            guard role == .initiator else { throw Abort(.commandNotSupported) }
            output.events.append(.securityRequested(request.authenticationRequirements))
            // A Security Request during pairing is ignored (§2.4.6).
            guard pairing == nil, configuration.pairsOnSecurityRequest else { return }
            // Ask for MITM protection when the peripheral does, for this pairing only.
            sendPairingRequest(extra: request.authenticationRequirements.intersection(.mitm), at: now, into: &output)
        case .pairingResponse(let response):
            guard role == .initiator else { throw Abort(.commandNotSupported) }
            guard case .requested(let request, let requestPDU)? = pairing else { throw Abort(.unspecifiedReason) }
            pairing = try receivePairingResponse(response, bytes: pdu.encoded, to: request, sent: requestPDU,
                                                 at: now, into: &output)
        case .keypressNotification(let note):
            guard case .passkeyEntry? = pairing?.model else { throw Abort(.unspecifiedReason) }
            output.events.append(.keypress(note.notificationType))
        default:
            guard let state = pairing else { throw Abort(.unspecifiedReason) }
            pairing = try advance(state, on: pdu, at: now, into: &output)
        }
    }

    /// The phase 2 and phase 3 PDUs: the next step, or nil when the pairing completed.
    private mutating func advance(_ state: Pairing, on pdu: SMPPDU, at now: MonotonicTime,
                                  into output: inout SecurityManagerOutput) throws(Abort) -> Pairing? {
        switch (state, pdu) {
        case (.legacy(let n, let commands, let step), .pairingConfirm(let v)):
            return .legacy(n, commands, try receiveLegacyConfirm(v.confirmValue, in: step, commands, at: now, into: &output))
        case (.legacy(let n, let commands, let step), .pairingRandom(let v)):
            return try receiveLegacyRandom(v.randomValue, in: step, n, commands, at: now, into: &output)
        case (.secureConnections(let n, let step), .pairingPublicKey(let key)):
            return .secureConnections(n, try receivePublicKey(key, in: step, n, at: now, into: &output))
        case (.secureConnections(let n, let step), .pairingConfirm(let v)):
            return .secureConnections(n, try receiveSecureConfirm(v.confirmValue, in: step, at: now, into: &output))
        case (.secureConnections(let n, let step), .pairingRandom(let v)):
            return .secureConnections(n, try receiveSecureRandom(v.randomValue, in: step, n, at: now, into: &output))
        case (.secureConnections(let n, let step), .pairingDHKeyCheck(let v)):
            return try receiveDHKeyCheck(v.checkValue, in: step, n, at: now, into: &output)
        case (.distributingKeys(let n, let key, let exchange), .encryptionInformation),
             (.distributingKeys(let n, let key, let exchange), .centralIdentification),
             (.distributingKeys(let n, let key, let exchange), .identityInformation),
             (.distributingKeys(let n, let key, let exchange), .identityAddressInformation),
             (.distributingKeys(let n, let key, let exchange), .signingInformation):
            return try receiveKey(pdu, n, key, exchange, at: now, into: &output)
        default:
            // A PDU of another step, or of the other method (a public key in legacy).
            throw Abort(.unspecifiedReason)
        }
    }

    /// The user's answer: the next step. Ignored (the step unchanged) when nothing was asked.
    mutating func advance(_ state: Pairing, on answer: SecurityManagerAnswer, at now: MonotonicTime,
                          into output: inout SecurityManagerOutput) throws(Abort) -> Pairing {
        switch (state, answer) {
        case (.legacy(let n, let commands, .awaitingPasskey(let peerConfirm)), .passkey(let value)) where value <= 999_999:
            return .legacy(n, commands, try legacyTKKnown(Self.tk(value), peerConfirm: peerConfirm, commands,
                                                          at: now, into: &output))
        case (.secureConnections(let n, .passkey(let keys, .awaitingPasskey(let peerConfirm))), .passkey(let value))
            where value <= 999_999:
            let step = try passkeyRoundReady(PasskeyRound(passkey: value, index: 0), peerConfirm: peerConfirm, keys,
                                             at: now, into: &output)
            return .secureConnections(n, .passkey(keys, step))
        case (.legacy(_, _, .awaitingPasskey), _), (.secureConnections(_, .passkey(_, .awaitingPasskey)), _):
            throw Abort(.passkeyEntryFailed)
        case (.secureConnections(let n, .awaitingUser(let inputs, let peerCheck)), .numericComparison(true)):
            return try userConfirmed(inputs, peerCheck: peerCheck, n, at: now, into: &output)
        case (.secureConnections(_, .awaitingUser), _):
            throw Abort(.numericComparisonFailed)
        default:
            return state
        }
    }
}
