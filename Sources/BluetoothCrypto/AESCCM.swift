import CCrypto

/// AES-128 in CCM mode (RFC 3610, NIST SP 800-38C) through libcrypto's EVP "AES-128-CCM":
/// the authenticated encryption BTHome v2 advertisements use (and the link layer, Vol 6 Part E).
///
/// The nonce length (7 to 13 bytes) fixes CCM's length field L = 15 − nonce length; the tag
/// (MIC) length is one of 4, 6, 8, 10, 12, 14 or 16 bytes. Bytes are in the order given.
public enum AESCCM {
    /// Why CCM gave no result.
    public enum Failure: Error, Hashable, Sendable {
        /// The key is not 16 bytes.
        case invalidKeyLength(Int)
        /// The nonce is not 7 to 13 bytes.
        case invalidNonceLength(Int)
        /// The tag is not 4, 6, 8, 10, 12, 14 or 16 bytes.
        case invalidTagLength(Int)
        /// The tag does not match: a wrong key, a wrong nonce, or altered bytes. No plaintext
        /// is returned.
        case authenticationFailed
        /// libcrypto refused (a missing provider, an allocation failure).
        case libcrypto(String)
    }

    /// `plaintext` encrypted and authenticated (together with `associatedData`) under `key`:
    /// the ciphertext, as long as the plaintext, and a `tagLength`-byte tag.
    public static func seal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8], associatedData: [UInt8] = [],
                            tagLength: Int) throws(Failure) -> (ciphertext: [UInt8], tag: [UInt8]) {
        try check(key: key, nonce: nonce, tagLength: tagLength)
        let session = try Session(encrypting: true, key: key, nonce: nonce, tag: nil, tagLength: tagLength,
                                  messageLength: plaintext.count, associatedData: associatedData)
        let ciphertext = try session.process(plaintext)
        guard session.finish() else { throw .libcrypto("EVP_EncryptFinal_ex") }
        return (ciphertext, try session.tag(tagLength))
    }

    /// The plaintext of `ciphertext`, released only when `tag` authenticates it and
    /// `associatedData` under `key` and `nonce`; otherwise ``Failure/authenticationFailed``.
    public static func open(key: [UInt8], nonce: [UInt8], ciphertext: [UInt8], tag: [UInt8],
                            associatedData: [UInt8] = []) throws(Failure) -> [UInt8] {
        try check(key: key, nonce: nonce, tagLength: tag.count)
        let session = try Session(encrypting: false, key: key, nonce: nonce, tag: tag, tagLength: tag.count,
                                  messageLength: ciphertext.count, associatedData: associatedData)
        // In CCM the update that carries the ciphertext also verifies the tag (there is no
        // final step for decryption); a refusal there is the tag mismatch.
        guard let plaintext = try? session.process(ciphertext) else { throw .authenticationFailed }
        return plaintext
    }

    private static func check(key: [UInt8], nonce: [UInt8], tagLength: Int) throws(Failure) {
        guard key.count == 16 else { throw .invalidKeyLength(key.count) }
        guard (7...13).contains(nonce.count) else { throw .invalidNonceLength(nonce.count) }
        guard (4...16).contains(tagLength), tagLength % 2 == 0 else { throw .invalidTagLength(tagLength) }
    }

    /// One libcrypto context, configured in the order CCM requires: nonce length and tag
    /// length, then key and nonce, then the total message length, then the associated data.
    private final class Session {
        let ctx: OpaquePointer
        let cipher: OpaquePointer
        let encrypting: Bool

        init(encrypting: Bool, key: [UInt8], nonce: [UInt8], tag: [UInt8]?, tagLength: Int,
             messageLength: Int, associatedData: [UInt8]) throws(Failure) {
            guard let cipher = EVP_CIPHER_fetch(nil, "AES-128-CCM", nil) else {
                throw .libcrypto("EVP_CIPHER_fetch(AES-128-CCM)")
            }
            guard let ctx = EVP_CIPHER_CTX_new() else {
                EVP_CIPHER_free(cipher)
                throw .libcrypto("EVP_CIPHER_CTX_new")
            }
            self.ctx = ctx
            self.cipher = cipher
            self.encrypting = encrypting
            let enc: Int32 = encrypting ? 1 : 0
            guard EVP_CipherInit_ex2(ctx, cipher, nil, nil, enc, nil) == 1 else { throw .libcrypto("EVP_CipherInit_ex2") }
            guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, Int32(nonce.count), nil) == 1 else {
                throw .libcrypto("EVP_CTRL_AEAD_SET_IVLEN")
            }
            // Encryption sets only the tag length; decryption hands over the expected tag.
            var expected = tag ?? []
            let tagSet = expected.withUnsafeMutableBufferPointer { t in
                EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, Int32(tagLength), tag == nil ? nil : t.baseAddress)
            }
            guard tagSet == 1 else { throw .libcrypto("EVP_CTRL_AEAD_SET_TAG") }
            let keyed = key.withUnsafeBufferPointer { k in
                nonce.withUnsafeBufferPointer { n in EVP_CipherInit_ex2(ctx, nil, k.baseAddress, n.baseAddress, enc, nil) }
            }
            guard keyed == 1 else { throw .libcrypto("EVP_CipherInit_ex2(key, nonce)") }
            var written: Int32 = 0
            guard let total = Int32(exactly: messageLength),
                  EVP_CipherUpdate(ctx, nil, &written, nil, total) == 1 else { throw .libcrypto("message length") }
            if !associatedData.isEmpty {
                guard let count = Int32(exactly: associatedData.count),
                      associatedData.withUnsafeBufferPointer({ EVP_CipherUpdate(ctx, nil, &written, $0.baseAddress, count) }) == 1
                else { throw .libcrypto("associated data") }
            }
        }

        deinit {
            EVP_CIPHER_CTX_free(ctx)
            EVP_CIPHER_free(cipher)
        }

        /// Encrypts or decrypts the whole message in one update (CCM allows only one).
        func process(_ input: [UInt8]) throws(Failure) -> [UInt8] {
            guard let count = Int32(exactly: input.count) else { throw .libcrypto("message too long") }
            // libcrypto takes a null input pointer as "no message"; an empty message still
            // needs a valid pointer so that the tag is computed over it.
            let source = input.isEmpty ? [0] : input
            var out = [UInt8](repeating: 0, count: max(1, input.count))
            var written: Int32 = 0
            let ok = source.withUnsafeBufferPointer { i in
                out.withUnsafeMutableBufferPointer { o in EVP_CipherUpdate(ctx, o.baseAddress, &written, i.baseAddress, count) }
            }
            guard ok == 1, written == count else { throw .libcrypto("EVP_CipherUpdate") }
            return Array(out.prefix(input.count))
        }

        func finish() -> Bool {
            var scratch = [UInt8](repeating: 0, count: 16)
            var written: Int32 = 0
            return scratch.withUnsafeMutableBufferPointer { EVP_CipherFinal_ex(ctx, $0.baseAddress, &written) } == 1
        }

        func tag(_ length: Int) throws(Failure) -> [UInt8] {
            var tag = [UInt8](repeating: 0, count: length)
            let ok = tag.withUnsafeMutableBufferPointer {
                EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, Int32(length), $0.baseAddress)
            }
            guard ok == 1 else { throw .libcrypto("EVP_CTRL_AEAD_GET_TAG") }
            return tag
        }
    }
}
