import ATTPresentation
import Testing
import BluetoothCore

/// BluetoothCore's ``JSONString``: the one escaper behind the presentation layer's JSON,
/// the gateway's payloads and leases, and the CLI's terminal quoting.
@Suite struct JSONStringTests {
    @Test func quotesBackslashesAndTheNamedControls() {
        #expect(JSONString.quoted("a\"b\\c\nd\re\tf") == #""a\"b\\c\nd\re\tf""#)
        #expect(JSONString.quoted("") == #""""#)
    }

    @Test func otherC0ControlsAsFourLowercaseHexDigits() {
        #expect(JSONString.quoted("\u{0}\u{1b}\u{1f}") == #""\u0000\u001b\u001f""#)
        #expect(JSONString.quoted(" ~é☃😀") == "\" ~é☃😀\"", "printable text stays as it is, UTF-8 and all")
    }

    @Test func extrasOnlyWhenAsked() {
        let text = "\u{7f}\u{85}\u{9b}\u{2028}\u{2029}"
        #expect(JSONString.quoted(text) == "\"\(text)\"", "JSON itself requires only the C0 controls")
        #expect(JSONString.quoted(text, alsoEscaping: .delete) == "\"\\u007f\u{85}\u{9b}\u{2028}\u{2029}\"")
        #expect(JSONString.quoted(text, alsoEscaping: .c1Controls) == "\"\u{7f}\\u0085\\u009b\u{2028}\u{2029}\"")
        #expect(JSONString.quoted(text, alsoEscaping: .lineSeparators) == "\"\u{7f}\u{85}\u{9b}\\u2028\\u2029\"")
        #expect(JSONString.quoted(text, alsoEscaping: [.delete, .c1Controls, .lineSeparators])
                == #""\u007f\u0085\u009b\u2028\u2029""#)
    }

    @Test func writeAppendsToWhatIsThere() {
        var out = "{\"k\":"
        JSONString.write("v\u{1}", to: &out)
        #expect(out == #"{"k":"v\u0001""#)
    }

    @Test func theCoreTakesAnotherSpellingForTheRest() {
        var out = ""
        JSONString.appendEscaped("a\u{1b}[2J\"\n", to: &out) { $0.value == 0x1B ? "<ESC>" : nil }
        #expect(out == #"a<ESC>[2J\"\n"#)
        #expect(hexString(0x1B, digits: 2) == "1b" && hexString(0x2028, digits: 2) == "2028")
    }

    @Test func jsonValueStringsAreUnchanged() {
        // The presentation layer escapes DEL, the C1 controls and the separators too.
        #expect(JSONValue.string("x\u{7f}\u{9b}\u{2028}\u{1b}\"").description == #""x\u007f\u009b\u2028\u001b\"""#)
    }
}
