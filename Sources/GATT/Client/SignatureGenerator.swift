import CCrypto

/// The data signing of Vol 3 Part H §2.4.5 for Signed Write Without Response:
/// signature = SignCounter (LE32) ‖ MAC, where MAC is the 64 most significant bits of
/// AES-CMAC (RFC 4493) over the PDU and counter, keyed with the CSRK. The spec writes
/// the message most significant octet first, so the little-endian wire bytes are
/// reversed going in, and the MAC is reversed coming out.
enum SignatureGenerator {
    /// `csrk` most significant octet first; `message` the PDU as sent, without signature.
    static func signature(message: [UInt8], signCounter: UInt32, csrk: [UInt8]) -> [UInt8]? {
        guard csrk.count == 16 else { return nil }
        var counter: [UInt8] = []
        for i in 0..<4 { counter.append(UInt8(truncatingIfNeeded: signCounter >> (8 * UInt32(i)))) }
        let m = Array((message + counter).reversed())
        guard let mac = aesCMAC(key: csrk, message: m) else { return nil }
        return counter + mac.prefix(8).reversed()
    }

    /// AES-128-CMAC through libcrypto's EVP_MAC interface.
    static func aesCMAC(key: [UInt8], message: [UInt8]) -> [UInt8]? {
        guard let mac = EVP_MAC_fetch(nil, "CMAC", nil) else { return nil }
        defer { EVP_MAC_free(mac) }
        guard let ctx = EVP_MAC_CTX_new(mac) else { return nil }
        defer { EVP_MAC_CTX_free(ctx) }
        var cipher = Array("AES-128-CBC".utf8CString)
        let ok: Bool = cipher.withUnsafeMutableBufferPointer { cipherName in
            var params = [
                OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER, cipherName.baseAddress, 0),
                OSSL_PARAM_construct_end(),
            ]
            return key.withUnsafeBufferPointer { k in
                EVP_MAC_init(ctx, k.baseAddress, k.count, &params) == 1
            }
        }
        guard ok, message.withUnsafeBufferPointer({ EVP_MAC_update(ctx, $0.baseAddress, $0.count) }) == 1 else { return nil }
        var out = [UInt8](repeating: 0, count: 16)
        var length = 0
        guard EVP_MAC_final(ctx, &out, &length, out.count) == 1, length == 16 else { return nil }
        return out
    }
}
