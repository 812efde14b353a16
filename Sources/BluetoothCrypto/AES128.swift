import CCrypto

/// AES-128 on one 16-byte block (FIPS-197), through libcrypto's EVP "AES-128-ECB" with
/// padding off: the block cipher the Security Manager's `e` function is (Vol 3 Part H §2.2.1).
///
/// Bytes are in FIPS-197 order (the first byte is the most significant octet of the spec's
/// notation). Bluetooth's little-endian values are reversed by the callers that need it.
public enum AES128 {
    /// `block` encrypted under `key`; both exactly 16 bytes.
    public static func encrypt(key: [UInt8], block: [UInt8]) throws(CryptoFailure) -> [UInt8] {
        guard key.count == 16 else { throw .invalidLength(field: "AES key", count: key.count) }
        guard block.count == 16 else { throw .invalidLength(field: "AES block", count: block.count) }
        guard let cipher = EVP_CIPHER_fetch(nil, "AES-128-ECB", nil) else { throw .libcrypto("EVP_CIPHER_fetch(AES-128-ECB)") }
        defer { EVP_CIPHER_free(cipher) }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw .libcrypto("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var out = [UInt8](repeating: 0, count: 32)
        var written: Int32 = 0
        var finalWritten: Int32 = 0
        let ok = key.withUnsafeBufferPointer { k in
            block.withUnsafeBufferPointer { b in
                out.withUnsafeMutableBufferPointer { o -> Bool in
                    guard EVP_EncryptInit_ex2(ctx, cipher, k.baseAddress, nil, nil) == 1,
                          EVP_CIPHER_CTX_set_padding(ctx, 0) == 1,
                          EVP_EncryptUpdate(ctx, o.baseAddress, &written, b.baseAddress, 16) == 1,
                          let base = o.baseAddress,
                          EVP_EncryptFinal_ex(ctx, base + Int(max(0, min(written, 16))), &finalWritten) == 1
                    else { return false }
                    return true
                }
            }
        }
        guard ok, written == 16, finalWritten == 0 else { throw .libcrypto("EVP_Encrypt init/update/final") }
        return Array(out[0..<16])
    }
}
