import BluetoothCore

/// The one escaper of the reports in markup, the HTML page and the JUnit XML: every text
/// that comes from the IUT or the run (reasons, ids, decoded PDUs, the target's name)
/// goes through it, so nothing an IUT sends can become markup or a script, or make the
/// XML unreadable (XML 1.0 cannot carry most control characters even as references).
public enum MarkupEscaping {
    /// `text` safe inside an element and inside a quoted attribute value, in HTML and in
    /// XML: `& < > " '` become character references, and control characters (C0 but tab
    /// and newline, DEL, C1), which HTML forbids in text, are shown as `\xNN` so a reader
    /// still sees that they were there.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            case "\u{00}"..."\u{1F}", "\u{7F}"..."\u{9F}":
                out += "\\x" + hexString(scalar.value, digits: 2)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
