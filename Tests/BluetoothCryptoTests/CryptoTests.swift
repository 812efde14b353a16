import Testing
import BluetoothCrypto
// `bytes("…")` for every file of the target.
@_exported import HexTestSupport

/// The P-256 sample keys of Vol 3 Part H §2.3.5.6.1 (the debug key pair is A's private key).
enum SampleKeys {
    static let privateA = bytes("3f49f6d4 a3c55f38 74c9b3e3 d2103f50 4aff607b eb40b799 5899b8a6 cd3c1abd")
    static let publicAx = bytes("20b003d2 f297be2c 5e2c83a7 e9f9a5b9 eff49111 acf4fddb cc030148 0e359de6")
    static let publicAy = bytes("dc809c49 652aeb6d 63329abf 5a52155c 766345c2 8fed3024 741c8ed0 1589d28b")
    static let privateB = bytes("55188b3d 32f6bb9a 900afcfb eed4e72a 59cb9ac2 f19d7cfb 6b4fdd49 f47fc5fd")
    static let publicBx = bytes("1ea1f0f0 1faf1d96 09592284 f19e4c00 47b58afd 8615a69f 559077b2 2faaa190")
    static let publicBy = bytes("4c55f33e 429dad37 7356703a 9ab85160 472d1130 e28e3676 5f89aff9 15b1214a")
    static let dhKey = bytes("ec0234a3 57c8ad05 341010a6 0a397d9b 99796b13 b4f866f1 868d34f3 73bfa698")
}

@Suite struct CryptoTests {
    @Test func aes128MatchesFIPS197() throws {
        // FIPS-197 Appendix C.1.
        #expect(try AES128.encrypt(key: bytes("000102030405060708090a0b0c0d0e0f"),
                                   block: bytes("00112233445566778899aabbccddeeff"))
            == bytes("69c4e0d86a7b0430d8cdb78070b4c55a"))
    }

    @Test func aes128RefusesWrongLengths() {
        #expect(throws: CryptoFailure.invalidLength(field: "AES key", count: 15)) {
            try AES128.encrypt(key: Array(repeating: 0, count: 15), block: Array(repeating: 0, count: 16))
        }
        #expect(throws: CryptoFailure.invalidLength(field: "AES block", count: 17)) {
            try AES128.encrypt(key: Array(repeating: 0, count: 16), block: Array(repeating: 0, count: 17))
        }
    }

    @Test func aesCMACMatchesRFC4493() throws {
        let key = bytes("2b7e151628aed2a6abf7158809cf4f3c")
        #expect(try AESCMAC.mac(key: key, message: bytes("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411"))
            == bytes("dfa66747de9ae63030ca32611497c827"))
    }

    @Test func sampleKeysGiveTheSampleDHKey() throws {
        let a = try P256.keyPair(privateKey: P256.PrivateKey(bigEndian: SampleKeys.privateA))
        let b = try P256.keyPair(privateKey: P256.PrivateKey(bigEndian: SampleKeys.privateB))
        #expect(a.publicKey.x == SampleKeys.publicAx)
        #expect(a.publicKey.y == SampleKeys.publicAy)
        #expect(b.publicKey.x == SampleKeys.publicBx)
        #expect(b.publicKey.y == SampleKeys.publicBy)
        #expect(try P256.sharedSecret(privateKey: a.privateKey, peer: b.publicKey) == SampleKeys.dhKey)
        #expect(try P256.sharedSecret(privateKey: b.privateKey, peer: a.publicKey) == SampleKeys.dhKey)
    }

    @Test func offCurvePointsAreRefusedBeforeECDH() throws {
        let a = try P256.PrivateKey(bigEndian: SampleKeys.privateA)
        var y = SampleKeys.publicBy
        y[31] ^= 0x01   // B's point with y + 1: not on the curve
        let offCurve = try P256.PublicKey(x: SampleKeys.publicBx, y: y)
        #expect(throws: CryptoFailure.publicKeyNotOnCurve) { try P256.validate(offCurve) }
        #expect(throws: CryptoFailure.publicKeyNotOnCurve) { try P256.sharedSecret(privateKey: a, peer: offCurve) }
        let origin = try P256.PublicKey(x: Array(repeating: 0, count: 32), y: Array(repeating: 0, count: 32))
        #expect(throws: CryptoFailure.publicKeyNotOnCurve) { try P256.sharedSecret(privateKey: a, peer: origin) }
        let huge = try P256.PublicKey(x: Array(repeating: 0xFF, count: 32), y: SampleKeys.publicBy)
        #expect(throws: CryptoFailure.publicKeyNotOnCurve) { try P256.sharedSecret(privateKey: a, peer: huge) }
    }

    @Test func privateKeysOutsideTheGroupAreRefused() {
        #expect(throws: CryptoFailure.invalidPrivateKey) { try P256.PrivateKey(bigEndian: Array(repeating: 0, count: 32)) }
        #expect(throws: CryptoFailure.invalidPrivateKey) { try P256.PrivateKey(bigEndian: Array(repeating: 0xFF, count: 32)) }
    }

    @Test func generatedPairsAgreeAndNeverPrintTheirPrivateKey() throws {
        let a = try P256.generateKeyPair()
        let b = try P256.generateKeyPair()
        #expect(a.publicKey != b.publicKey)
        #expect(try P256.sharedSecret(privateKey: a.privateKey, peer: b.publicKey)
            == P256.sharedSecret(privateKey: b.privateKey, peer: a.publicKey))
        #expect("\(a.privateKey)" == "<redacted>")
        #expect(String(reflecting: a.privateKey) == "<redacted>")
        #expect(!"\(a)".contains(a.privateKey.bigEndianBytes.map { String($0, radix: 16) }.joined()))
    }

    @Test func randomBytes() throws {
        #expect(try SecureRandom.bytes(16).count == 16)
        #expect(try SecureRandom.bytes(16) != SecureRandom.bytes(16))
    }
}
