/// Phase 1: the Pairing Request and Response, key size and association model (§2.3).
extension SecurityManager {
    /// Our side of the feature exchange.
    func localFeatures(initiatorKeys: KeyDistribution, responderKeys: KeyDistribution) -> PairingFeatures {
        PairingFeatures(ioCapability: configuration.ioCapability, oobDataFlag: peerOOB != nil ? 0x01 : 0x00,
                        authenticationRequirements: configuration.authenticationRequirements,
                        maximumEncryptionKeySize: UInt8(configuration.maximumKeySize),
                        initiatorKeyDistribution: initiatorKeys, responderKeyDistribution: responderKeys)
    }

    mutating func sendPairingRequest(extra: AuthenticationRequirements = [], at now: MonotonicTime,
                                     into output: inout SecurityManagerOutput) {
        var features = localFeatures(initiatorKeys: configuration.offeredKeys, responderKeys: configuration.requestedKeys)
        features.authenticationRequirements.formUnion(extra)
        let pdu = SMPPDU.pairingRequest(PairingRequest(features))
        pairing = .requested(features, pdu: pdu.encoded)
        send(pdu, at: now, into: &output)
    }

    /// Checks the peer's parameters: Invalid Parameters for reserved values. A maximum key
    /// size below 7 is not refused here but by ``negotiate(_:)``, with Encryption Key Size,
    /// as for any size below our minimum (§2.3.4).
    func validate(_ f: PairingFeatures) throws(Abort) {
        guard f.ioCapability.isDefined, f.oobDataFlag <= 0x01, f.maximumEncryptionKeySize <= 16 else {
            throw Abort(.invalidParameters)
        }
    }

    /// Responder: answers the Pairing Request and starts phase 2.
    mutating func receivePairingRequest(_ request: PairingRequest, bytes: [UInt8], at now: MonotonicTime,
                                        into output: inout SecurityManagerOutput) throws(Abort) -> Pairing {
        guard configuration.acceptsPairing else { throw Abort(.pairingNotSupported) }
        let peer = request.features
        try validate(peer)
        let bonding = configuration.bonding && peer.authenticationRequirements.contains(.bonding)
        // The responder may only clear bits the initiator set (§3.6.1).
        let initiatorKeys = bonding ? peer.initiatorKeyDistribution.intersection(configuration.requestedKeys) : []
        let responderKeys = bonding ? peer.responderKeyDistribution.intersection(configuration.offeredKeys) : []
        let ours = localFeatures(initiatorKeys: initiatorKeys, responderKeys: responderKeys)
        let (negotiated, secureConnections) = try negotiate(initiator: peer, responder: ours)
        let pdu = SMPPDU.pairingResponse(PairingResponse(ours))
        let commands = PairingCommands(request: bytes, response: pdu.encoded)
        send(pdu, at: now, into: &output)
        if secureConnections { return .secureConnections(negotiated, .awaitingPublicKey) }
        return .legacy(negotiated, commands, try beginLegacyAuthentication(negotiated, commands, at: now, into: &output))
    }

    /// Initiator: checks the Pairing Response against our Request and starts phase 2.
    mutating func receivePairingResponse(_ response: PairingResponse, bytes: [UInt8], to request: PairingFeatures,
                                         sent requestPDU: [UInt8], at now: MonotonicTime,
                                         into output: inout SecurityManagerOutput) throws(Abort) -> Pairing {
        let peer = response.features
        try validate(peer)
        guard peer.initiatorKeyDistribution.isSubset(of: request.initiatorKeyDistribution),
              peer.responderKeyDistribution.isSubset(of: request.responderKeyDistribution)
        else { throw Abort(.invalidParameters) }
        let (negotiated, secureConnections) = try negotiate(initiator: request, responder: peer)
        if secureConnections {
            let keyPair = try makeKeyPair()
            sendPublicKey(keyPair, at: now, into: &output)
            return .secureConnections(negotiated, .publicKeySent(keyPair))
        }
        let commands = PairingCommands(request: requestPDU, response: bytes)
        return .legacy(negotiated, commands, try beginLegacyAuthentication(negotiated, commands, at: now, into: &output))
    }

    /// Key size, Secure Connections or legacy, and the association model, against our requirements.
    func negotiate(initiator i: PairingFeatures, responder r: PairingFeatures) throws(Abort)
        -> (NegotiatedPairing, secureConnections: Bool) {
        let secureConnections = i.authenticationRequirements.contains(.secureConnections)
            && r.authenticationRequirements.contains(.secureConnections)
        if configuration.secureConnectionsOnly && !secureConnections { throw Abort(.authenticationRequirements) }
        let size = Int(min(i.maximumEncryptionKeySize, r.maximumEncryptionKeySize))
        guard size >= configuration.minimumKeySize else { throw Abort(.encryptionKeySize) }
        let model = AssociationModel.select(initiator: i, responder: r, secureConnections: secureConnections)
        if configuration.requiresMITM && !model.isAuthenticated { throw Abort(.authenticationRequirements) }
        if model == .outOfBand {
            // LE legacy OOB needs a TK from the OOB channel, which this manager does not take.
            guard secureConnections else { throw Abort(.oobNotAvailable) }
            // If the peer holds our OOB data we must have made it.
            let peerHasOurs = (role == .initiator ? r : i).oobDataFlag == 0x01
            if peerHasOurs && localOOB == nil { throw Abort(.oobNotAvailable) }
        }
        return (NegotiatedPairing(initiator: i, responder: r, model: model, keySize: size), secureConnections)
    }

    /// Whether this side shows the passkey, types it, or neither.
    func passkeyDuty(_ roles: AssociationModel.PasskeyRoles) -> (displays: Bool, inputs: Bool) {
        switch (roles, role) {
        case (.initiatorDisplays, .initiator), (.responderDisplays, .responder): return (true, false)
        case (.bothInput, _): return (false, true)
        default: return (false, true)
        }
    }

    /// Starts Passkey Entry on this side: shows a passkey or asks for one. Returns the
    /// passkey when it is known now; nil when the user is asked to type it.
    mutating func beginPasskey(_ roles: AssociationModel.PasskeyRoles, into output: inout SecurityManagerOutput) throws(Abort) -> UInt32? {
        if passkeyDuty(roles).displays {
            let passkey = try randomPasskey()
            output.events.append(.displayPasskey(passkey))
            return passkey
        }
        output.events.append(.enterPasskey)
        return nil
    }

    /// A passkey as a 128-bit little-endian value (TK, or ra/rb of f6).
    static func tk(_ passkey: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: passkey), UInt8(truncatingIfNeeded: passkey >> 8),
         UInt8(truncatingIfNeeded: passkey >> 16), UInt8(truncatingIfNeeded: passkey >> 24)]
            + [UInt8](repeating: 0, count: 12)
    }

    /// `key` with the octets above the negotiated size zeroed (§2.3.4).
    static func masked(_ key: [UInt8], to size: Int) -> SMPKey {
        var k = key
        for i in max(0, min(16, size))..<16 { k[i] = 0 }
        return SMPKey(exactly: k)
    }

    /// The initiator's and responder's addresses.
    var initiatorAddress: SMPAddress { role == .initiator ? localAddress : peerAddress }
    var responderAddress: SMPAddress { role == .initiator ? peerAddress : localAddress }
}
