/// Bytes written as hex in a test, most significant byte first as the specs print them,
/// white space ignored: `bytes("3f49f6d4 a3c55f38")`. A pair that is not hex reads as 0 and a
/// trailing odd digit is dropped, so a typo shows as a failed comparison, not a crash.
public func bytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.utf8.filter { ![UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r")].contains($0) })
    var out: [UInt8] = []
    out.reserveCapacity(digits.count / 2)
    var i = 0
    while i + 1 < digits.count {
        out.append(UInt8(String(decoding: digits[i...i + 1], as: UTF8.self), radix: 16) ?? 0)
        i += 2
    }
    return out
}
