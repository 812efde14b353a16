import BluetoothCrypto

/// The Security Manager's cryptographic toolbox (Vol 3 Part H §2.2), under the spec's names.
///
/// Every argument and result is least significant octet first (as everywhere in this module):
/// the order the values travel in PDUs. The spec's formulas concatenate most significant first
/// (`U || V || Z` puts U at the top); each function builds that message in the spec's order
/// and hands it to AES or AES-CMAC in libcrypto, reversing at that border only.
public enum SecurityFunctions {
    // MARK: - AES and AES-CMAC in the spec's order

    /// e: AES-128 of one block (§2.2.1).
    public static func e(key: [UInt8], plaintext: [UInt8]) throws(CryptoFailure) -> [UInt8] {
        try check(key, 16, "key")
        try check(plaintext, 16, "plaintextData")
        return try AES128.encrypt(key: key.reversed(), block: plaintext.reversed()).reversed()
    }

    /// AES-CMAC with the key and message given most significant octet first; the result too.
    static func cmac(key: [UInt8], message: [UInt8]) throws(CryptoFailure) -> [UInt8] {
        do {
            return try AESCMAC.mac(key: key, message: message)
        } catch {
            switch error {
            case .invalidKeyLength(let n): throw .invalidLength(field: "AES-CMAC key", count: n)
            case .libcrypto(let what): throw .libcrypto(what)
            }
        }
    }

    // MARK: - LE legacy pairing

    /// c1: the confirm value of LE legacy pairing (§2.2.3).
    ///
    /// `pairingRequest` and `pairingResponse` are the 7-octet PDUs as sent (code octet
    /// first, which is their least significant octet); addresses come with their type bit.
    public static func c1(k: [UInt8], r: [UInt8], pairingRequest preq: [UInt8], pairingResponse pres: [UInt8],
                          initiatingAddress ia: SMPAddress, respondingAddress ra: SMPAddress) throws(CryptoFailure) -> [UInt8] {
        try check(k, 16, "k")
        try check(r, 16, "r")
        try check(preq, 7, "preq")
        try check(pres, 7, "pres")
        // p1 = pres || preq || rat' || iat', p2 = padding || ia || ra (most significant first).
        let p1 = [ia.typeOctet, ra.typeOctet] + preq + pres
        let p2 = ra.address.littleEndianBytes + ia.address.littleEndianBytes + [0, 0, 0, 0]
        let inner = try e(key: k, plaintext: xor(r, p1))
        return try e(key: k, plaintext: xor(inner, p2))
    }

    /// s1: the STK of LE legacy pairing (§2.2.4), from the low 64 bits of r1 (Srand) above
    /// the low 64 bits of r2 (Mrand).
    public static func s1(k: [UInt8], r1: [UInt8], r2: [UInt8]) throws(CryptoFailure) -> [UInt8] {
        try check(k, 16, "k")
        try check(r1, 16, "r1")
        try check(r2, 16, "r2")
        return try e(key: k, plaintext: Array(r2[0..<8]) + Array(r1[0..<8]))
    }

    // MARK: - Private addresses

    /// ah: the hash of a resolvable private address (§2.2.2): 24 bits from the IRK `k` and
    /// the 24-bit `prand` r.
    public static func ah(k: [UInt8], r: [UInt8]) throws(CryptoFailure) -> [UInt8] {
        try check(k, 16, "k")
        try check(r, 3, "r")
        return Array(try e(key: k, plaintext: r + [UInt8](repeating: 0, count: 13))[0..<3])
    }

    // MARK: - LE Secure Connections

    /// f4: the confirm values of LE Secure Connections (§2.2.6), AES-CMAC_X(U || V || Z).
    public static func f4(u: [UInt8], v: [UInt8], x: [UInt8], z: UInt8) throws(CryptoFailure) -> [UInt8] {
        try check(u, 32, "U")
        try check(v, 32, "V")
        try check(x, 16, "X")
        return try cmac(key: x.reversed(), message: u.reversed() + v.reversed() + [z]).reversed()
    }

    /// f5: MacKey and LTK from the DHKey `w` (§2.2.7).
    public static func f5(w: [UInt8], n1: [UInt8], n2: [UInt8], a1: [UInt8], a2: [UInt8])
        throws(CryptoFailure) -> (macKey: [UInt8], ltk: [UInt8]) {
        try check(w, 32, "W")
        try check(n1, 16, "N1")
        try check(n2, 16, "N2")
        try check(a1, 7, "A1")
        try check(a2, 7, "A2")
        let salt: [UInt8] = [0x6C, 0x88, 0x83, 0x91, 0xAA, 0xF5, 0xA5, 0x38, 0x60, 0x37, 0x0B, 0xDB, 0x5A, 0x60, 0x83, 0xBE]
        let t = try cmac(key: salt, message: w.reversed())
        let keyID: [UInt8] = [0x62, 0x74, 0x6C, 0x65]   // "btle"
        let rest = keyID + n1.reversed() + n2.reversed() + a1.reversed() + a2.reversed() + [0x01, 0x00]   // Length = 256
        let macKey = try cmac(key: t, message: [0] + rest)
        let ltk = try cmac(key: t, message: [1] + rest)
        return (macKey.reversed(), ltk.reversed())
    }

    /// f6: the DHKey check values Ea and Eb (§2.2.8), AES-CMAC_W(N1 || N2 || R || IOcap || A1 || A2).
    public static func f6(w: [UInt8], n1: [UInt8], n2: [UInt8], r: [UInt8], ioCap: [UInt8], a1: [UInt8], a2: [UInt8])
        throws(CryptoFailure) -> [UInt8] {
        try check(w, 16, "W")
        try check(n1, 16, "N1")
        try check(n2, 16, "N2")
        try check(r, 16, "R")
        try check(ioCap, 3, "IOcap")
        try check(a1, 7, "A1")
        try check(a2, 7, "A2")
        let m = n1.reversed() + n2.reversed() + r.reversed() + ioCap.reversed() + a1.reversed() + a2.reversed()
        return try cmac(key: w.reversed(), message: m).reversed()
    }

    /// g2: the numeric comparison value (§2.2.9), the low 32 bits of AES-CMAC_X(U || V || Y).
    /// The six digits shown are this value mod 1 000 000.
    public static func g2(u: [UInt8], v: [UInt8], x: [UInt8], y: [UInt8]) throws(CryptoFailure) -> UInt32 {
        try check(u, 32, "U")
        try check(v, 32, "V")
        try check(x, 16, "X")
        try check(y, 16, "Y")
        let mac = try cmac(key: x.reversed(), message: u.reversed() + v.reversed() + y.reversed())
        return UInt32(mac[12]) << 24 | UInt32(mac[13]) << 16 | UInt32(mac[14]) << 8 | UInt32(mac[15])
    }

    /// h6: link key conversion (§2.2.10), AES-CMAC_W(keyID). `keyID` is 4 octets, least
    /// significant first (so "lebr" is `[0x72, 0x62, 0x65, 0x6C]`; see ``keyID(_:)``).
    public static func h6(w: [UInt8], keyID: [UInt8]) throws(CryptoFailure) -> [UInt8] {
        try check(w, 16, "W")
        try check(keyID, 4, "keyID")
        return try cmac(key: w.reversed(), message: keyID.reversed()).reversed()
    }

    /// h7: link key conversion with a SALT (§2.2.11), AES-CMAC_SALT(W).
    public static func h7(salt: [UInt8], w: [UInt8]) throws(CryptoFailure) -> [UInt8] {
        try check(salt, 16, "SALT")
        try check(w, 16, "W")
        return try cmac(key: salt.reversed(), message: w.reversed()).reversed()
    }

    /// A four-letter key ID or SALT text ("lebr", "tmp1", "tmp2", "brle") as the spec writes
    /// it (first letter most significant), returned least significant first.
    public static func keyID(_ text: StaticString) -> [UInt8] {
        var out: [UInt8] = []
        text.withUTF8Buffer { out = Array($0) }
        return out.reversed()
    }

    // MARK: - Helpers

    static func xor(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var out = a
        for i in 0..<min(a.count, b.count) { out[i] ^= b[i] }
        return out
    }

    static func check(_ value: [UInt8], _ count: Int, _ field: String) throws(CryptoFailure) {
        guard value.count == count else { throw .invalidLength(field: field, count: value.count) }
    }
}
