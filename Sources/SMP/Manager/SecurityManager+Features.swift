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
        var p = Pairing(stage: .waitingPairingResponse, request: features)
        p.requestPDU = pdu.encoded
        pairing = p
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

    mutating func receivePairingRequest(_ request: PairingRequest, bytes: [UInt8], at now: MonotonicTime,
                                        into output: inout SecurityManagerOutput) throws(Abort) {
        guard configuration.acceptsPairing else { throw Abort(.pairingNotSupported) }
        let peer = request.features
        try validate(peer)
        let bonding = configuration.bonding && peer.authenticationRequirements.contains(.bonding)
        // The responder may only clear bits the initiator set (§3.6.1).
        let initiatorKeys = bonding ? peer.initiatorKeyDistribution.intersection(configuration.requestedKeys) : []
        let responderKeys = bonding ? peer.responderKeyDistribution.intersection(configuration.offeredKeys) : []
        let ours = localFeatures(initiatorKeys: initiatorKeys, responderKeys: responderKeys)
        var p = Pairing(stage: .waitingConfirm, request: peer)
        p.requestPDU = bytes
        p.response = ours
        try negotiate(&p)
        let pdu = SMPPDU.pairingResponse(PairingResponse(ours))
        p.responsePDU = pdu.encoded
        pairing = p
        send(pdu, at: now, into: &output)
        if p.secureConnections {
            pairing?.stage = .waitingPublicKey
        } else {
            try beginLegacyAuthentication(at: now, into: &output)
        }
    }

    mutating func receivePairingResponse(_ response: PairingResponse, bytes: [UInt8], at now: MonotonicTime,
                                         into output: inout SecurityManagerOutput) throws(Abort) {
        guard var p = pairing else { return }
        let peer = response.features
        try validate(peer)
        guard peer.initiatorKeyDistribution.isSubset(of: p.request.initiatorKeyDistribution),
              peer.responderKeyDistribution.isSubset(of: p.request.responderKeyDistribution)
        else { throw Abort(.invalidParameters) }
        p.response = peer
        p.responsePDU = bytes
        try negotiate(&p)
        pairing = p
        if p.secureConnections {
            p.stage = .waitingPublicKey
            pairing = p
            try sendPublicKey(at: now, into: &output)
        } else {
            pairing?.stage = .waitingConfirm
            try beginLegacyAuthentication(at: now, into: &output)
        }
    }

    /// Key size, Secure Connections or legacy, and the association model, against our requirements.
    func negotiate(_ p: inout Pairing) throws(Abort) {
        let i = p.initiatorFeatures, r = p.responderFeatures
        p.secureConnections = i.authenticationRequirements.contains(.secureConnections)
            && r.authenticationRequirements.contains(.secureConnections)
        if configuration.secureConnectionsOnly && !p.secureConnections { throw Abort(.authenticationRequirements) }
        let size = Int(min(i.maximumEncryptionKeySize, r.maximumEncryptionKeySize))
        guard size >= configuration.minimumKeySize else { throw Abort(.encryptionKeySize) }
        p.keySize = size
        p.model = AssociationModel.select(initiator: i, responder: r, secureConnections: p.secureConnections)
        if configuration.requiresMITM && !p.model.isAuthenticated { throw Abort(.authenticationRequirements) }
        if p.model == .outOfBand {
            // LE legacy OOB needs a TK from the OOB channel, which this manager does not take.
            guard p.secureConnections else { throw Abort(.oobNotAvailable) }
            // If the peer holds our OOB data we must have made it.
            let peerHasOurs = (role == .initiator ? r : i).oobDataFlag == 0x01
            if peerHasOurs && localOOB == nil { throw Abort(.oobNotAvailable) }
        }
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
    /// passkey when it is known now.
    mutating func beginPasskey(_ roles: AssociationModel.PasskeyRoles, into output: inout SecurityManagerOutput) throws(Abort) -> UInt32? {
        if passkeyDuty(roles).displays {
            let passkey = try randomPasskey()
            output.events.append(.displayPasskey(passkey))
            return passkey
        }
        pairing?.awaiting = .passkey
        output.events.append(.enterPasskey)
        return nil
    }

    /// A passkey became known (typed by the user).
    mutating func passkeyKnown(_ passkey: UInt32, at now: MonotonicTime, into output: inout SecurityManagerOutput) throws(Abort) {
        guard let p = pairing else { return }
        if p.secureConnections {
            pairing?.passkey = passkey
            try secureConnectionsPasskeyReady(at: now, into: &output)
        } else {
            pairing?.tk = Self.tk(passkey)
            try legacyTKReady(at: now, into: &output)
        }
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
