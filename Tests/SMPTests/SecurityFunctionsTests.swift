import Testing
import BluetoothCore
import BluetoothCrypto
@testable import SMP

/// The toolbox against the Core specification's sample data, byte for byte: Vol 3 Part H
/// §2.2.3 and §2.2.4 for c1 and s1, Appendix D for ah, f4, f5, f6, g2, h6 and h7, and the
/// P-256 sample keys of §2.3.5.6.1 / D.1.
@Suite struct SecurityFunctionsTests {
    static let dhKey = le("ec0234a3 57c8ad05 341010a6 0a397d9b 99796b13 b4f866f1 868d34f3 73bfa698")
    static let u = le("20b003d2 f297be2c 5e2c83a7 e9f9a5b9 eff49111 acf4fddb cc030148 0e359de6")
    static let v = le("55188b3d 32f6bb9a 900afcfb eed4e72a 59cb9ac2 f19d7cfb 6b4fdd49 f47fc5fd")
    static let n1 = le("d5cb8454 d177733e ffffb2ec 712baeab")
    static let n2 = le("a6e8e7cc 25a75f6e 216583f7 ff3dc4cf")
    static let a1 = le("00561237 37bfce")
    static let a2 = le("00a71370 2dcfc1")
    static let macKey = le("2965f176 a1084a02 fd3f6a20 ce636e20")

    @Test func eIsAES128InLittleEndianOrder() throws {
        // FIPS-197 Appendix C.1, each value reversed into this module's order.
        #expect(try SecurityFunctions.e(key: le("000102030405060708090a0b0c0d0e0f"),
                                        plaintext: le("00112233445566778899aabbccddeeff"))
            == le("69c4e0d86a7b0430d8cdb78070b4c55a"))
    }

    @Test func c1MatchesSection2_2_3() throws {
        let preq = le("07071000000101")
        let pres = le("05000800000302")
        #expect(preq == [0x01, 0x01, 0x00, 0x00, 0x10, 0x07, 0x07])   // a Pairing Request as sent
        let ia = SMPAddress(BluetoothAddress(0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6), isRandom: true)
        let ra = SMPAddress(BluetoothAddress(0xB1, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6), isRandom: false)
        let confirm = try SecurityFunctions.c1(k: Array(repeating: 0, count: 16), r: le("5783D52156AD6F0E6388274EC6702EE0"),
                                               pairingRequest: preq, pairingResponse: pres,
                                               initiatingAddress: ia, respondingAddress: ra)
        #expect(confirm == le("1E1E3FEF878988EAD2A74DC5BEF13B86"))
    }

    @Test func s1MatchesSection2_2_4() throws {
        let stk = try SecurityFunctions.s1(k: Array(repeating: 0, count: 16), r1: le("000F0E0D0C0B0A091122334455667788"),
                                           r2: le("010203040506070899AABBCCDDEEFF00"))
        #expect(stk == le("9a1fe1f0e8b0f49b5b4216ae796da062"))
    }

    @Test func ahMatchesAppendixD() throws {
        #expect(try SecurityFunctions.ah(k: le("ec0234a357c8ad05341010a60a397d9b"), r: le("708194")) == le("0dfbaa"))
    }

    @Test func f4MatchesAppendixD() throws {
        #expect(try SecurityFunctions.f4(u: Self.u, v: Self.v, x: Self.n1, z: 0) == le("f2c916f1 07a9bd1c f1eda1be a974872d"))
    }

    @Test func f5MatchesAppendixD() throws {
        let keys = try SecurityFunctions.f5(w: Self.dhKey, n1: Self.n1, n2: Self.n2, a1: Self.a1, a2: Self.a2)
        #expect(keys.macKey == Self.macKey)
        #expect(keys.ltk == le("69867911 69d7cd23 980522b5 94750a38"))
    }

    @Test func f6MatchesAppendixD() throws {
        let check = try SecurityFunctions.f6(w: Self.macKey, n1: Self.n1, n2: Self.n2, r: le("12a3343b b453bb54 08da42d2 0c2d0fc8"),
                                             ioCap: le("010102"), a1: Self.a1, a2: Self.a2)
        #expect(check == le("e3c47398 9cd0e8c5 d26c0b09 da958f61"))
    }

    @Test func g2MatchesAppendixD() throws {
        #expect(try SecurityFunctions.g2(u: Self.u, v: Self.v, x: Self.n1, y: Self.n2) == 0x2f9e_d5ba)
    }

    @Test func h6MatchesAppendixD() throws {
        #expect(SecurityFunctions.keyID("lebr") == le("6c656272"))
        #expect(try SecurityFunctions.h6(w: le("ec0234a357c8ad05341010a60a397d9b"), keyID: SecurityFunctions.keyID("lebr"))
            == le("2d9ae102 e76dc91c e8d3a9e2 80b16399"))
    }

    @Test func h7MatchesAppendixD() throws {
        #expect(try SecurityFunctions.h7(salt: le("000000000000000000000000746D7031"), w: le("ec0234a357c8ad05341010a60a397d9b"))
            == le("fb173597 c6a3c0ec d2998c2a 75a57011"))
    }

    @Test func sampleKeysAgreeOnTheSampleDHKey() throws {
        // §2.3.5.6.1: the debug private key (A) and B's, and the DHKey they agree on.
        let a = try P256.keyPair(privateKey: P256.PrivateKey(bigEndian: bytes("3f49f6d4a3c55f3874c9b3e3d2103f504aff607beb40b7995899b8a6cd3c1abd")))
        let b = try P256.keyPair(privateKey: P256.PrivateKey(bigEndian: bytes("55188b3d32f6bb9a900afcfbeed4e72a59cb9ac2f19d7cfb6b4fdd49f47fc5fd")))
        #expect(a.publicKey.x.reversed() == Self.u)
        #expect(b.publicKey.x == bytes("1ea1f0f01faf1d9609592284f19e4c0047b58afd8615a69f559077b22faaa190"))
        #expect(b.publicKey.y == bytes("4c55f33e429dad377356703a9ab85160472d1130e28e36765f89aff915b1214a"))
        #expect(try P256.sharedSecret(privateKey: a.privateKey, peer: b.publicKey).reversed() == Self.dhKey)
        #expect(try P256.sharedSecret(privateKey: b.privateKey, peer: a.publicKey).reversed() == Self.dhKey)
    }

    @Test func wrongLengthsThrowInsteadOfTrapping() {
        #expect(throws: CryptoFailure.invalidLength(field: "X", count: 3)) {
            try SecurityFunctions.f4(u: Self.u, v: Self.v, x: [1, 2, 3], z: 0)
        }
        #expect(throws: CryptoFailure.invalidLength(field: "r", count: 2)) {
            try SecurityFunctions.ah(k: Self.n1, r: [1, 2])
        }
    }
}
