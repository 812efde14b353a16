import Testing
import BluetoothCore
@testable import SMP

@Suite struct SMPPDUTests {
    static let samples: [SMPPDU] = [
        .pairingRequest(PairingRequest(PairingFeatures(ioCapability: .keyboardDisplay, oobDataFlag: 0,
            authenticationRequirements: [.bonding, .mitm, .secureConnections], maximumEncryptionKeySize: 16,
            initiatorKeyDistribution: [.encKey, .idKey], responderKeyDistribution: [.encKey, .idKey, .signKey]))),
        .pairingResponse(PairingResponse(PairingFeatures(ioCapability: .noInputNoOutput, authenticationRequirements: [.bonding],
            initiatorKeyDistribution: [], responderKeyDistribution: [.encKey]))),
        .pairingConfirm(PairingConfirm(confirmValue: Array(0..<16))),
        .pairingRandom(PairingRandom(randomValue: Array(16..<32))),
        .pairingFailed(PairingFailed(reason: .confirmValueFailed)),
        .encryptionInformation(EncryptionInformation(longTermKey: SMPKey(exactly: Array(32..<48)))),
        .centralIdentification(CentralIdentification(ediv: 0x1234, rand: 0x0102_0304_0506_0708)),
        .identityInformation(IdentityInformation(identityResolvingKey: SMPKey(exactly: Array(48..<64)))),
        .identityAddressInformation(IdentityAddressInformation(address: SMPAddress(BluetoothAddress(0xC0, 1, 2, 3, 4, 5), isRandom: true))),
        .signingInformation(SigningInformation(signatureKey: SMPKey(exactly: Array(64..<80)))),
        .securityRequest(SecurityRequest(authenticationRequirements: [.bonding, .mitm])),
        .pairingPublicKey(PairingPublicKey(x: Array(0..<32), y: Array(32..<64))),
        .pairingDHKeyCheck(PairingDHKeyCheck(checkValue: Array(80..<96))),
        .keypressNotification(KeypressNotification(notificationType: .passkeyDigitEntered)),
    ]

    @Test func everyPDURoundTripsAtItsExactLength() throws {
        #expect(Set(Self.samples.map(\.code)) == Set(SMPCode.allCases))
        for pdu in Self.samples {
            let encoded = pdu.encoded
            #expect(encoded.count == pdu.code.pduLength)
            #expect(encoded.first == pdu.code.rawValue)
            #expect(try SMPPDU(decoding: encoded) == pdu)
        }
    }

    @Test func wireLayoutOfKnownPDUs() throws {
        #expect(SMPPDU.centralIdentification(CentralIdentification(ediv: 0x1234, rand: 0x0102_0304_0506_0708)).encoded
            == [0x07, 0x34, 0x12, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01])
        #expect(SMPPDU.identityAddressInformation(IdentityAddressInformation(
            address: SMPAddress(BluetoothAddress(0xC0, 1, 2, 3, 4, 5), isRandom: true))).encoded
            == [0x09, 0x01, 5, 4, 3, 2, 1, 0xC0])
        // The c1 sample's Pairing Request, as sent.
        guard case .pairingRequest(let request) = try SMPPDU(decoding: [0x01, 0x01, 0x00, 0x00, 0x10, 0x07, 0x07]) else {
            Issue.record("not a pairing request"); return
        }
        #expect(request.features.ioCapability == .displayYesNo)
        #expect(request.features.maximumEncryptionKeySize == 16)
        #expect(request.features.initiatorKeyDistribution == [.encKey, .idKey, .signKey])
    }

    @Test func lengthsAreExactAndErrorsNameTheOffset() {
        for code in SMPCode.allCases {
            let length = code.pduLength
            let short = [code.rawValue] + [UInt8](repeating: 0, count: length - 2)
            #expect(throws: SMPDecodingError(.wrongLength(code: code.rawValue, expected: length, actual: length - 1), offset: length - 1)) {
                try SMPPDU(decoding: short)
            }
            let long = [code.rawValue] + [UInt8](repeating: 0, count: length)
            #expect(throws: SMPDecodingError(.wrongLength(code: code.rawValue, expected: length, actual: length + 1), offset: length)) {
                try SMPPDU(decoding: long)
            }
        }
        #expect(throws: SMPDecodingError(.empty, offset: 0)) { try SMPPDU(decoding: []) }
        #expect(throws: SMPDecodingError(.unknownCode(0x0F), offset: 0)) { try SMPPDU(decoding: [0x0F, 0]) }
        #expect(throws: SMPDecodingError(.unknownCode(0x00), offset: 0)) { try SMPPDU(decoding: [0x00]) }
    }

    @Test func keysNeverAppearInDescriptions() {
        let key = SMPKey(exactly: [UInt8](repeating: 0xAB, count: 16))
        for pdu in [SMPPDU.encryptionInformation(EncryptionInformation(longTermKey: key)),
                    .identityInformation(IdentityInformation(identityResolvingKey: key)),
                    .signingInformation(SigningInformation(signatureKey: key))] {
            #expect(!"\(pdu)".lowercased().contains("abab"))
            #expect(!String(reflecting: pdu).lowercased().contains("abab"))
            #expect("\(pdu)".contains("<redacted>"))
        }
        #expect("\(key)" == "<redacted>")
        #expect(String(reflecting: key) == "<redacted>")
    }

    @Test func reasonCodesHaveTheirSpecNames() {
        #expect(PairingFailedReason.dhKeyCheckFailed.rawValue == 0x0B)
        #expect(PairingFailedReason.encryptionKeySize.description == "Encryption Key Size")
        #expect(PairingFailedReason(rawValue: 0x7F).description == "reason 0x7f")
    }
}
