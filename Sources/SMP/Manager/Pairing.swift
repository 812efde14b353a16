import BluetoothCrypto

/// The state of one pairing procedure.
struct Pairing: Sendable {
    enum Stage: Hashable, Sendable {
        case waitingPairingResponse
        case waitingPublicKey
        case waitingConfirm
        case waitingRandom
        case waitingDHKeyCheck
        case waitingEncryption
        case keyDistribution
    }

    enum UserRequest: Hashable, Sendable { case passkey, numericComparison }

    var stage: Stage
    /// The Pairing Request and Response as sent (7 octets each), for c1.
    var requestPDU: [UInt8] = []
    var responsePDU: [UInt8] = []
    var request: PairingFeatures
    var response: PairingFeatures?
    var secureConnections = false
    var model: AssociationModel = .justWorks
    var keySize = 16
    var awaiting: UserRequest?

    // LE legacy
    var tk: [UInt8]?
    // Secure Connections passkey (also 20 rounds' bit source)
    var passkey: UInt32?
    var round = 0
    var numericComparisonConfirmed = false

    var localRandom: [UInt8]?
    var peerRandom: [UInt8]?
    var localConfirm: [UInt8]?
    var peerConfirm: [UInt8]?
    /// Ea received by a responder before its user confirmed the numbers.
    var pendingPeerCheck: [UInt8]?
    var sentCheck = false

    var keyPair: P256.KeyPair?
    var peerPublicKey: PairingPublicKey?
    var dhKey: [UInt8]?
    /// Na and Nb of the last round (Secure Connections).
    var na: [UInt8]?
    var nb: [UInt8]?
    var macKey: [UInt8]?
    var ltk: SMPKey?

    /// The STK (legacy) or LTK (Secure Connections) the link is encrypted with now.
    var linkEncryptionKey: SMPKey?

    // Key distribution
    var keysToSend: KeyDistribution = []
    var keysToReceive: [SMPCode] = []
    var sentKeys = DistributedKeys()
    var receivedKeys = DistributedKeys()
    var sentOwnKeys = false

    init(stage: Stage, request: PairingFeatures) {
        self.stage = stage
        self.request = request
    }

    /// The negotiated features of each side.
    var initiatorFeatures: PairingFeatures { request }
    var responderFeatures: PairingFeatures { response ?? request }
}
