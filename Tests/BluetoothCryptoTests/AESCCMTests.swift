import Testing
import BluetoothCrypto

/// AES-CCM against the published vectors: NIST SP 800-38C Appendix C (C.1 has the 4-byte
/// tag BTHome uses) and RFC 3610 §8 Packet Vector #1.
@Suite struct AESCCMTests {
    /// The SP 800-38C example key (C.1–C.3).
    static let nistKey = bytes("40414243 44454647 48494a4b 4c4d4e4f")

    @Test func sp800_38cExample1FourByteTag() throws {
        let sealed = try AESCCM.seal(key: Self.nistKey, nonce: bytes("10111213 141516"), plaintext: bytes("20212223"),
                                     associatedData: bytes("00010203 04050607"), tagLength: 4)
        #expect(sealed.ciphertext == bytes("7162015b"))
        #expect(sealed.tag == bytes("4dac255d"))
        #expect(try AESCCM.open(key: Self.nistKey, nonce: bytes("10111213 141516"), ciphertext: bytes("7162015b"),
                                tag: bytes("4dac255d"), associatedData: bytes("00010203 04050607")) == bytes("20212223"))
    }

    @Test func sp800_38cExample2SixByteTag() throws {
        let nonce = bytes("10111213 14151617")
        let aad = bytes("00010203 04050607 08090a0b 0c0d0e0f")
        let plaintext = bytes("20212223 24252627 28292a2b 2c2d2e2f")
        let sealed = try AESCCM.seal(key: Self.nistKey, nonce: nonce, plaintext: plaintext, associatedData: aad, tagLength: 6)
        #expect(sealed.ciphertext + sealed.tag == bytes("d2a1f0e0 51ea5f62 081a7792 073d593d 1fc64fbf accd"))
        #expect(try AESCCM.open(key: Self.nistKey, nonce: nonce, ciphertext: sealed.ciphertext, tag: sealed.tag,
                                associatedData: aad) == plaintext)
    }

    @Test func sp800_38cExample3EightByteTag() throws {
        let nonce = bytes("10111213 14151617 18191a1b")
        let aad = bytes("00010203 04050607 08090a0b 0c0d0e0f 10111213")
        let plaintext = bytes("20212223 24252627 28292a2b 2c2d2e2f 30313233 34353637")
        let sealed = try AESCCM.seal(key: Self.nistKey, nonce: nonce, plaintext: plaintext, associatedData: aad, tagLength: 8)
        #expect(sealed.ciphertext + sealed.tag
                == bytes("e3b201a9 f5b71a7a 9b1ceaec cd97e70b 6176aad9 a4428aa5 484392fb c1b09951"))
    }

    @Test func rfc3610PacketVector1() throws {
        // RFC 3610 §8: M = 8, L = 2, 13-byte nonce, the first 8 packet bytes authenticated only.
        let key = bytes("c0c1c2c3 c4c5c6c7 c8c9cacb cccdcecf")
        let nonce = bytes("00000003 020100a0 a1a2a3a4 a5")
        let header = bytes("00010203 04050607")
        let payload = bytes("08090a0b 0c0d0e0f 10111213 14151617 18191a1b 1c1d1e")
        let sealed = try AESCCM.seal(key: key, nonce: nonce, plaintext: payload, associatedData: header, tagLength: 8)
        #expect(header + sealed.ciphertext + sealed.tag
                == bytes("00010203 04050607 588c979a 61c663d2 f066d0c2 c0f98980 6d5f6b61 dac38417 e8d12cfd f926e0"))
        #expect(try AESCCM.open(key: key, nonce: nonce, ciphertext: sealed.ciphertext, tag: sealed.tag,
                                associatedData: header) == payload)
    }

    @Test func openRefusesAWrongKeyATamperedByteAndWrongAssociatedData() {
        let nonce = bytes("10111213 141516")
        let aad = bytes("00010203 04050607")
        var wrongKey = Self.nistKey
        wrongKey[15] ^= 1
        #expect(throws: AESCCM.Failure.authenticationFailed) {
            try AESCCM.open(key: wrongKey, nonce: nonce, ciphertext: bytes("7162015b"), tag: bytes("4dac255d"), associatedData: aad)
        }
        #expect(throws: AESCCM.Failure.authenticationFailed) {
            try AESCCM.open(key: Self.nistKey, nonce: nonce, ciphertext: bytes("7162015c"), tag: bytes("4dac255d"), associatedData: aad)
        }
        #expect(throws: AESCCM.Failure.authenticationFailed) {
            try AESCCM.open(key: Self.nistKey, nonce: nonce, ciphertext: bytes("7162015b"), tag: bytes("4dac255d"), associatedData: [])
        }
    }

    @Test func emptyPlaintextStillAuthenticates() throws {
        let nonce = bytes("10111213 141516")
        let sealed = try AESCCM.seal(key: Self.nistKey, nonce: nonce, plaintext: [], associatedData: bytes("0001"), tagLength: 4)
        #expect(sealed.ciphertext.isEmpty)
        #expect(try AESCCM.open(key: Self.nistKey, nonce: nonce, ciphertext: [], tag: sealed.tag, associatedData: bytes("0001")) == [])
        #expect(throws: AESCCM.Failure.authenticationFailed) {
            try AESCCM.open(key: Self.nistKey, nonce: nonce, ciphertext: [], tag: sealed.tag, associatedData: bytes("0002"))
        }
    }

    @Test func refusesBadLengths() {
        #expect(throws: AESCCM.Failure.invalidKeyLength(15)) {
            try AESCCM.seal(key: Array(repeating: 0, count: 15), nonce: Array(repeating: 0, count: 13), plaintext: [1], tagLength: 4)
        }
        #expect(throws: AESCCM.Failure.invalidNonceLength(14)) {
            try AESCCM.seal(key: Self.nistKey, nonce: Array(repeating: 0, count: 14), plaintext: [1], tagLength: 4)
        }
        #expect(throws: AESCCM.Failure.invalidTagLength(5)) {
            try AESCCM.seal(key: Self.nistKey, nonce: Array(repeating: 0, count: 13), plaintext: [1], tagLength: 5)
        }
        #expect(throws: AESCCM.Failure.invalidTagLength(3)) {
            try AESCCM.open(key: Self.nistKey, nonce: Array(repeating: 0, count: 13), ciphertext: [1], tag: [1, 2, 3])
        }
    }
}
