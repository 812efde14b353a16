/// JSON string literals (RFC 8259 §7), for the hand-written JSON of the presentation
/// layer, the gateway's payloads and leases: `"` and `\` escaped, `\n`, `\r` and `\t`
/// by name, every other C0 control as `\u00XX`, and optionally more (``Extras``) so that
/// text from the air printed to a terminal cannot drive it.
public enum JSONString {
    /// Characters escaped as `\uXXXX` besides the C0 controls JSON requires.
    public struct Extras: OptionSet, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// DEL (U+007F).
        public static let delete = Extras(rawValue: 1 << 0)
        /// The C1 controls U+0080 to U+009F (U+009B is a CSI to some terminals).
        public static let c1Controls = Extras(rawValue: 1 << 1)
        /// The line and paragraph separators U+2028 and U+2029 (line breaks to
        /// JavaScript and to some terminals).
        public static let lineSeparators = Extras(rawValue: 1 << 2)
    }

    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String, alsoEscaping extras: Extras = []) -> String {
        var out = ""
        write(text, alsoEscaping: extras, to: &out)
        return out
    }

    /// Appends `text` as a JSON string literal, quotes included.
    public static func write(_ text: String, alsoEscaping extras: Extras = [], to out: inout String) {
        out += "\""
        appendEscaped(text, to: &out) { scalar in
            let value = scalar.value
            let escaped = value < 0x20
                || (extras.contains(.delete) && value == 0x7F)
                || (extras.contains(.c1Controls) && (0x80...0x9F).contains(value))
                || (extras.contains(.lineSeparators) && (value == 0x2028 || value == 0x2029))
            return escaped ? "\\u" + hexString(value, digits: 4) : nil
        }
        out += "\""
    }

    /// Appends `text` with `"` and `\` escaped, `\n`, `\r` and `\t` by name, and every
    /// other scalar that `escape` spells out replaced by its spelling: the common core
    /// of JSON strings and of other quoted text (a terminal's, with its own escapes).
    /// `escape` is asked only about scalars outside printable ASCII (U+0020 to U+007E);
    /// printable ASCII other than `"` and `\` is always kept as it is.
    public static func appendEscaped(_ text: String, to out: inout String,
                                     escaping escape: (Unicode.Scalar) -> String?) {
        // Most text (topics, names, units, hex) is plain printable ASCII: one append,
        // instead of one per scalar (the gateway writes several strings per value).
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) {
            out += text
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if let spelled = escape(scalar) {
                    out += spelled
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
    }
}
