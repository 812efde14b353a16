import CCrypto

/// Random bytes from libcrypto's CSPRNG (RAND_bytes).
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(_ count: Int) throws(CryptoFailure) -> [UInt8] {
        guard count >= 0, count <= Int(Int32.max) else { throw .invalidLength(field: "random", count: count) }
        var out = [UInt8](repeating: 0, count: count)
        if count == 0 { return out }
        let ok = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        guard ok == 1 else { throw .libcrypto("RAND_bytes") }
        return out
    }
}
