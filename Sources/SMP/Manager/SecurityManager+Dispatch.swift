/// Which PDU goes where, and what is unexpected (Vol 3 Part H §3.3–3.6).
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
            try receivePairingRequest(request, bytes: pdu.encoded, at: now, into: &output)
        case .securityRequest(let request):
            guard role == .initiator else { throw Abort(.commandNotSupported) }
            output.events.append(.securityRequested(request.authenticationRequirements))
            // A Security Request during pairing is ignored (§2.4.6).
            guard pairing == nil, configuration.pairsOnSecurityRequest else { return }
            // Ask for MITM protection when the peripheral does, for this pairing only.
            sendPairingRequest(extra: request.authenticationRequirements.intersection(.mitm), at: now, into: &output)
        case .pairingResponse(let response):
            guard role == .initiator else { throw Abort(.commandNotSupported) }
            guard pairing?.stage == .waitingPairingResponse else { throw Abort(.unspecifiedReason) }
            try receivePairingResponse(response, bytes: pdu.encoded, at: now, into: &output)
        case .pairingPublicKey(let key):
            guard let p = pairing, p.secureConnections, p.stage == .waitingPublicKey else { throw Abort(.unspecifiedReason) }
            try receivePublicKey(key, at: now, into: &output)
        case .pairingConfirm(let confirm):
            guard let p = pairing, p.stage == .waitingConfirm else { throw Abort(.unspecifiedReason) }
            if p.secureConnections {
                try receiveSecureConfirm(confirm.confirmValue, at: now, into: &output)
            } else {
                try receiveLegacyConfirm(confirm.confirmValue, at: now, into: &output)
            }
        case .pairingRandom(let random):
            guard let p = pairing, p.stage == .waitingRandom else { throw Abort(.unspecifiedReason) }
            if p.secureConnections {
                try receiveSecureRandom(random.randomValue, at: now, into: &output)
            } else {
                try receiveLegacyRandom(random.randomValue, at: now, into: &output)
            }
        case .pairingDHKeyCheck(let check):
            guard let p = pairing, p.secureConnections, p.stage == .waitingDHKeyCheck else { throw Abort(.unspecifiedReason) }
            try receiveDHKeyCheck(check.checkValue, at: now, into: &output)
        case .keypressNotification(let note):
            guard let p = pairing, case .passkeyEntry = p.model else { throw Abort(.unspecifiedReason) }
            output.events.append(.keypress(note.notificationType))
        case .encryptionInformation, .centralIdentification, .identityInformation, .identityAddressInformation,
             .signingInformation:
            guard pairing?.stage == .keyDistribution else { throw Abort(.unspecifiedReason) }
            try receiveKey(pdu, at: now, into: &output)
        }
    }
}
