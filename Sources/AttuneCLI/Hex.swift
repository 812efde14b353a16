import BluetoothCore

/// Parses hex bytes as people type them: "1b1400aabbcc", "1b 14 00", "1b:14:00", "0x1b14".
enum Hex {
    /// Bad hex is a usage error: the command line is wrong, not the peer or the radio.
    static func parse(_ text: String) throws(CLIError) -> [UInt8] {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        let separators = " :-_"
        if let bytes = parseHex(digits, separators: separators) { return bytes }
        // parseHex says only that the text is not hex; find the character to name.
        if let (index, ch) = digits.enumerated().first(where: { !$0.element.isHexDigit && !separators.contains($0.element) }) {
            throw .usage("invalid hex '\(text)': '\(ch)' at character \(index + 1) is not a hex digit")
        }
        throw .usage("invalid hex '\(text)': odd number of hex digits")
    }
}

/// "1 byte", "300 bytes".
func byteCount(_ n: Int) -> String { n == 1 ? "1 byte" : "\(n) bytes" }
