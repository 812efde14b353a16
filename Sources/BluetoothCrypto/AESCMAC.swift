import CCrypto

/// AES-128-CMAC (RFC 4493; Vol 3 Part H §2.2.5) through libcrypto's EVP_MAC "CMAC".
///
/// Bytes are taken and returned in the order given (RFC 4493 order, most significant
/// octet first). Bluetooth's little-endian keys and messages are reversed by the callers
/// that need it (GATT's ATTSignature and DatabaseHash, SMP's toolbox functions).
public enum AESCMAC {
    /// Why a MAC could not be computed.
    public enum Failure: Error, Hashable, Sendable {
        case invalidKeyLength(Int)
        /// libcrypto refused (no CMAC provider, allocation failure).
        case libcrypto(String)
    }

    /// The 16-byte AES-CMAC of `message` under the 16-byte `key`.
    public static func mac(key: [UInt8], message: [UInt8]) throws(Failure) -> [UInt8] {
        guard key.count == 16 else { throw .invalidKeyLength(key.count) }
        guard let mac = EVP_MAC_fetch(nil, "CMAC", nil) else { throw .libcrypto("EVP_MAC_fetch(CMAC)") }
        defer { EVP_MAC_free(mac) }
        guard let ctx = EVP_MAC_CTX_new(mac) else { throw .libcrypto("EVP_MAC_CTX_new") }
        defer { EVP_MAC_CTX_free(ctx) }

        var cipherName = Array("AES-128-CBC".utf8CString)
        var paramKey = Array("cipher".utf8CString)
        var out = [UInt8](repeating: 0, count: 16)
        var outLength = 0
        let ok: Bool = cipherName.withUnsafeMutableBufferPointer { name in
            paramKey.withUnsafeMutableBufferPointer { pk in
                var params = [
                    OSSL_PARAM_construct_utf8_string(pk.baseAddress, name.baseAddress, 0),
                    OSSL_PARAM_construct_end(),
                ]
                guard key.withUnsafeBufferPointer({ EVP_MAC_init(ctx, $0.baseAddress, 16, &params) }) == 1 else {
                    return false
                }
                guard message.withUnsafeBufferPointer({ EVP_MAC_update(ctx, $0.baseAddress, $0.count) }) == 1 else {
                    return false
                }
                return out.withUnsafeMutableBufferPointer { EVP_MAC_final(ctx, $0.baseAddress, &outLength, 16) } == 1
            }
        }
        guard ok, outLength == 16 else { throw .libcrypto("EVP_MAC init/update/final") }
        return out
    }
}
