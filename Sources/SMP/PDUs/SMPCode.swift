/// The SMP command codes (Vol 3 Part H §3.3, Table 3.4).
public enum SMPCode: UInt8, Hashable, Sendable, CaseIterable {
    case pairingRequest = 0x01
    case pairingResponse = 0x02
    case pairingConfirm = 0x03
    case pairingRandom = 0x04
    case pairingFailed = 0x05
    case encryptionInformation = 0x06
    case centralIdentification = 0x07
    case identityInformation = 0x08
    case identityAddressInformation = 0x09
    case signingInformation = 0x0A
    case securityRequest = 0x0B
    case pairingPublicKey = 0x0C
    case pairingDHKeyCheck = 0x0D
    case keypressNotification = 0x0E

    /// The whole PDU's length, code octet included; every SMP PDU has a fixed length.
    public var pduLength: Int {
        switch self {
        case .pairingRequest, .pairingResponse: return 7
        case .pairingConfirm, .pairingRandom, .encryptionInformation, .identityInformation,
             .signingInformation, .pairingDHKeyCheck: return 17
        case .pairingFailed, .securityRequest, .keypressNotification: return 2
        case .centralIdentification: return 11
        case .identityAddressInformation: return 8
        case .pairingPublicKey: return 65
        }
    }
}
