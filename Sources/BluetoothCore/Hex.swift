// Hex is written and read here, once, for every module: PDU descriptions, JSON values,
// CLI output, config keys. Callers differ only in the separator, the text for no bytes,
// the width and the case, so those are parameters rather than more helpers.

/// Lowercase hex of `bytes` in the order given: "0a1b2c", or "0a 1b 2c" with
/// `separator: " "`.
///
/// No bytes print as `empty`: "(empty)" by default, because a blank in a sentence reads as
/// missing text; formats that carry hex as data (JSON, keys) pass `empty: ""`.
public func hexString<Bytes: Sequence>(_ bytes: Bytes, separator: String = "", empty: String = "(empty)") -> String
where Bytes.Element == UInt8 {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.underestimatedCount * (2 + separator.utf8.count))
    for b in bytes {
        if !out.isEmpty { out.append(contentsOf: separator.utf8) }
        out.append(hexDigit(b >> 4))
        out.append(hexDigit(b & 0xF))
    }
    return out.isEmpty ? empty : String(decoding: out, as: UTF8.self)
}

/// `value` in hex, zero-padded to at least `digits` digits: `hexString(0x1b, digits: 4)` is "001b".
public func hexString(_ value: some BinaryInteger, digits: Int, uppercase: Bool = false) -> String {
    let text = String(value, radix: 16, uppercase: uppercase)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
}

/// The bytes that hex text spells, either case, with any character of `separators` skipped
/// wherever it stands; nil for any other character or an odd number of digits.
public func parseHex(_ text: some StringProtocol, separators: String = " \n\t") -> [UInt8]? {
    let skipped = Set(separators.utf8)
    var out: [UInt8] = []
    out.reserveCapacity(text.utf8.count / 2)
    var high: UInt8?
    for c in text.utf8 {
        let v: UInt8
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c - UInt8(ascii: "A") + 10
        default:
            if skipped.contains(c) { continue }
            return nil
        }
        if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
    }
    return high == nil ? out : nil
}

/// The lowercase ASCII digit for a nibble.
private func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
}
