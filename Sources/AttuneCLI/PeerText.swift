import ATT

/// Text a peer chose (advertised names, device names read over the air) on its way to a
/// terminal: anything that could move the cursor, recolour the screen, start a new line
/// or reorder what follows becomes a visible escape, so a name like "a\u{1b}[2Jb" can
/// neither clear the screen nor forge a line of output. JSON output needs no such help:
/// ``JSONValue`` escapes control characters itself, and names decode as UTF-8 with
/// invalid bytes replaced (U+FFFD), so every JSON string is valid.
enum PeerText {
    /// `text` with control characters shown as escapes: `\n`, `\r`, `\t`, `\x1b` for the
    /// other C0 controls and DEL, `\u{85}` for C1 controls, line and paragraph separators
    /// and bidirectional overrides; `\` and `"` are escaped too, so a quoted name stays
    /// one unambiguous token.
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        JSONString.appendEscaped(text, to: &out) { scalar in
            let value = scalar.value
            if value < 0x20 || value == 0x7F { return "\\x" + hexString(value, digits: 2) }
            if (0x80...0x9F).contains(value) || isInvisibleFormatting(value) {
                return "\\u{" + hexString(value, digits: 2) + "}"
            }
            return nil
        }
        return out
    }

    /// Line and paragraph separators, and the bidirectional embeddings, overrides,
    /// isolates and marks that reorder text after them (the "Trojan Source" characters).
    private static func isInvisibleFormatting(_ value: UInt32) -> Bool {
        value == 0x2028 || value == 0x2029 || (0x202A...0x202E).contains(value)
            || (0x2066...0x2069).contains(value) || value == 0x200E || value == 0x200F || value == 0x061C
    }
}
