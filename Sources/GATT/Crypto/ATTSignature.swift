import ATT

/// The ATT authentication signature of Signed Write Command (Vol 3 Part H §2.4.5).
///
/// `signature = LE32(signCounter) || MAC`, where MAC is the 64 most significant bits of
/// AES-CMAC with key CSRK over `PDU || LE32(signCounter)`, all numbers little-endian on
/// the wire. In byte terms: `MAC = reverse(first 8 bytes of AES-CMAC(reverse(CSRK),
/// reverse(PDU || LE32(counter)))).`
///
/// Shared by the GATT server (verification) and the GATT client (signing).
public enum ATTSignature {
    /// Length of the signature on the wire: 4-byte counter and 8-byte MAC.
    public static let length = 12

    /// The 12-byte signature for `pdu` (opcode, handle and value, without signature).
    /// - Parameter csrk: the Connection Signature Resolving Key, least significant octet first.
    public static func sign(pdu: some Collection<UInt8>, csrk: [UInt8], signCounter: UInt32) throws(AESCMAC.Failure) -> [UInt8] {
        let counter = [UInt8(truncatingIfNeeded: signCounter), UInt8(truncatingIfNeeded: signCounter >> 8),
                       UInt8(truncatingIfNeeded: signCounter >> 16), UInt8(truncatingIfNeeded: signCounter >> 24)]
        let message = Array(pdu) + counter
        let mac = try AESCMAC.mac(key: csrk.reversed(), message: message.reversed())
        return counter + mac[0..<8].reversed()
    }

    /// Builds a complete Signed Write Command PDU.
    public static func signedWriteCommand(handle: AttributeHandle, value: [UInt8], csrk: [UInt8],
                                          signCounter: UInt32) throws(AESCMAC.Failure) -> [UInt8] {
        var pdu: [UInt8] = [0xD2, UInt8(truncatingIfNeeded: handle.rawValue), UInt8(truncatingIfNeeded: handle.rawValue >> 8)]
        pdu += value
        return pdu + (try sign(pdu: pdu, csrk: csrk, signCounter: signCounter))
    }

    /// Whether `signedPDU` (a whole Signed Write Command) carries a valid signature for
    /// `csrk`. The caller checks the counter against replay.
    public static func verify(signedPDU: ArraySlice<UInt8>, csrk: [UInt8]) -> Bool {
        guard signedPDU.count >= 3 + length else { return false }
        let split = signedPDU.endIndex - length
        let body = signedPDU[signedPDU.startIndex..<split]
        let sig = signedPDU[split...]
        let i = sig.startIndex
        let counter = UInt32(sig[i]) | UInt32(sig[i + 1]) << 8 | UInt32(sig[i + 2]) << 16 | UInt32(sig[i + 3]) << 24
        guard let expected = try? sign(pdu: body, csrk: csrk, signCounter: counter) else { return false }
        // Constant-time comparison: the MAC must not leak through timing.
        var diff: UInt8 = 0
        for (a, b) in zip(expected, sig) { diff |= a ^ b }
        return diff == 0
    }
}

