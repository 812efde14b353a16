/// Parses hex bytes as people type them: "1b1400aabbcc", "1b 14 00", "1b:14:00", "0x1b14".
enum Hex {
    /// Bad hex is a usage error: the command line is wrong, not the peer or the radio.
    static func parse(_ text: String) throws(CLIError) -> [UInt8] {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        var out: [UInt8] = []
        var high: UInt8?
        for (index, ch) in digits.enumerated() {
            if ch == " " || ch == ":" || ch == "-" || ch == "_" { continue }
            guard let nibble = ch.hexDigitValue else {
                throw .usage("invalid hex '\(text)': '\(ch)' at character \(index + 1) is not a hex digit")
            }
            if let h = high {
                out.append(h << 4 | UInt8(nibble))
                high = nil
            } else {
                high = UInt8(nibble)
            }
        }
        if high != nil { throw .usage("invalid hex '\(text)': odd number of hex digits") }
        return out
    }
}

extension Hex {
    /// "0a 1b 2c": bytes as people read them in a trace.
    static func spaced(_ bytes: some Collection<UInt8>) -> String {
        bytes.map { b in
            let s = String(b, radix: 16)
            return s.count == 1 ? "0" + s : s
        }.joined(separator: " ")
    }
}

/// "1 byte", "300 bytes".
func byteCount(_ n: Int) -> String { n == 1 ? "1 byte" : "\(n) bytes" }
