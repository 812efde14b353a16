/// One SMP PDU (Vol 3 Part H §3.3): the code octet then fixed-length parameters.
public enum SMPPDU: Hashable, Sendable, CustomStringConvertible {
    case pairingRequest(PairingRequest)
    case pairingResponse(PairingResponse)
    case pairingConfirm(PairingConfirm)
    case pairingRandom(PairingRandom)
    case pairingFailed(PairingFailed)
    case encryptionInformation(EncryptionInformation)
    case centralIdentification(CentralIdentification)
    case identityInformation(IdentityInformation)
    case identityAddressInformation(IdentityAddressInformation)
    case signingInformation(SigningInformation)
    case securityRequest(SecurityRequest)
    case pairingPublicKey(PairingPublicKey)
    case pairingDHKeyCheck(PairingDHKeyCheck)
    case keypressNotification(KeypressNotification)

    /// Decodes one PDU. The length must be exactly the one its code defines: a short PDU
    /// fails at its end, a long one at the first extra octet.
    public init(decoding bytes: ArraySlice<UInt8>) throws(SMPDecodingError) {
        guard let first = bytes.first else { throw SMPDecodingError(.empty, offset: 0) }
        guard let code = SMPCode(rawValue: first) else { throw SMPDecodingError(.unknownCode(first), offset: 0) }
        let expected = code.pduLength
        guard bytes.count == expected else {
            throw SMPDecodingError(.wrongLength(code: first, expected: expected, actual: bytes.count),
                                   offset: min(bytes.count, expected))
        }
        let p = bytes[(bytes.startIndex + 1)...]
        switch code {
        case .pairingRequest: self = .pairingRequest(PairingRequest(parameters: p))
        case .pairingResponse: self = .pairingResponse(PairingResponse(parameters: p))
        case .pairingConfirm: self = .pairingConfirm(PairingConfirm(parameters: p))
        case .pairingRandom: self = .pairingRandom(PairingRandom(parameters: p))
        case .pairingFailed: self = .pairingFailed(PairingFailed(parameters: p))
        case .encryptionInformation: self = .encryptionInformation(EncryptionInformation(parameters: p))
        case .centralIdentification: self = .centralIdentification(CentralIdentification(parameters: p))
        case .identityInformation: self = .identityInformation(IdentityInformation(parameters: p))
        case .identityAddressInformation: self = .identityAddressInformation(IdentityAddressInformation(parameters: p))
        case .signingInformation: self = .signingInformation(SigningInformation(parameters: p))
        case .securityRequest: self = .securityRequest(SecurityRequest(parameters: p))
        case .pairingPublicKey: self = .pairingPublicKey(PairingPublicKey(parameters: p))
        case .pairingDHKeyCheck: self = .pairingDHKeyCheck(PairingDHKeyCheck(parameters: p))
        case .keypressNotification: self = .keypressNotification(KeypressNotification(parameters: p))
        }
    }

    /// Decodes an array.
    public init(decoding bytes: [UInt8]) throws(SMPDecodingError) { try self.init(decoding: bytes[...]) }

    public var code: SMPCode {
        switch self {
        case .pairingRequest: .pairingRequest
        case .pairingResponse: .pairingResponse
        case .pairingConfirm: .pairingConfirm
        case .pairingRandom: .pairingRandom
        case .pairingFailed: .pairingFailed
        case .encryptionInformation: .encryptionInformation
        case .centralIdentification: .centralIdentification
        case .identityInformation: .identityInformation
        case .identityAddressInformation: .identityAddressInformation
        case .signingInformation: .signingInformation
        case .securityRequest: .securityRequest
        case .pairingPublicKey: .pairingPublicKey
        case .pairingDHKeyCheck: .pairingDHKeyCheck
        case .keypressNotification: .keypressNotification
        }
    }

    /// Appends the PDU's bytes to `out`.
    public func encode(into out: inout [UInt8]) {
        switch self {
        case .pairingRequest(let v): v.encode(into: &out)
        case .pairingResponse(let v): v.encode(into: &out)
        case .pairingConfirm(let v): v.encode(into: &out)
        case .pairingRandom(let v): v.encode(into: &out)
        case .pairingFailed(let v): v.encode(into: &out)
        case .encryptionInformation(let v): v.encode(into: &out)
        case .centralIdentification(let v): v.encode(into: &out)
        case .identityInformation(let v): v.encode(into: &out)
        case .identityAddressInformation(let v): v.encode(into: &out)
        case .signingInformation(let v): v.encode(into: &out)
        case .securityRequest(let v): v.encode(into: &out)
        case .pairingPublicKey(let v): v.encode(into: &out)
        case .pairingDHKeyCheck(let v): v.encode(into: &out)
        case .keypressNotification(let v): v.encode(into: &out)
        }
    }

    /// The PDU's bytes.
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(code.pduLength)
        encode(into: &out)
        return out
    }

    public var description: String {
        switch self {
        case .pairingRequest(let v): "\(v)"
        case .pairingResponse(let v): "\(v)"
        case .pairingConfirm(let v): "\(v)"
        case .pairingRandom(let v): "\(v)"
        case .pairingFailed(let v): "\(v)"
        case .encryptionInformation(let v): "\(v)"
        case .centralIdentification(let v): "\(v)"
        case .identityInformation(let v): "\(v)"
        case .identityAddressInformation(let v): "\(v)"
        case .signingInformation(let v): "\(v)"
        case .securityRequest(let v): "\(v)"
        case .pairingPublicKey(let v): "\(v)"
        case .pairingDHKeyCheck(let v): "\(v)"
        case .keypressNotification(let v): "\(v)"
        }
    }
}
