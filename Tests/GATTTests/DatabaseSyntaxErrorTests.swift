import Foundation
import Testing
import GATT

/// A database file that is not JSON says where it breaks: line, column and byte offset,
/// and what was found there, for both forms of the file.
@Suite struct DatabaseSyntaxErrorTests {
    static func failure(_ text: String) -> String { failure(Data(text.utf8)) }

    static func failure(_ data: Data) -> String {
        var errors: [String] = []
        do { _ = try DatabaseJSON.serviceDefinitions(from: data) } catch { errors.append("\(error)") }
        do { _ = try DatabaseJSON.databases(from: data) } catch { errors.append("\(error)") }
        return errors.count == 2 && errors[0] == errors[1] ? errors[0] : "\(errors)"
    }

    @Test(arguments: [
        // A missing colon: the value's quote where ':' must be.
        ("{\"services\": [\n  {\"uuid\" \"180f\"}\n]}", "line 2, column 11 (byte offset 25): expected ':' after the member name, found '\"'"),
        // A missing comma between two services, on the next line.
        ("{\"services\": [{\"uuid\": \"180f\", \"id\": \"é\"}\n {\"uuid\": \"180a\"}]}", "line 2, column 2 (byte offset 44): expected ',' or ']', found '{'"),
        // After a two-byte letter, columns count scalars and the offset bytes.
        ("{\"id\": \"é\" \"x\"}", "line 1, column 12 (byte offset 12): expected ',' or '}', found '\"'"),
        // The file ends inside the list.
        ("{\"services\": [", "line 1, column 15 (byte offset 14): the file ends inside an array"),
        // A raw line break inside a string.
        ("{\"services\": [{\"uuid\": \"18\n0f\"}]}", "line 1, column 27 (byte offset 26): a control character (byte 0xA) inside a string must be escaped"),
        ("{\"services\": [{\"uuid\": 01}]}", "line 1, column 25 (byte offset 24): expected ',' or '}', found '1'"),
        ("{\"services\": True}", "line 1, column 14 (byte offset 13): expected a value, found 'T'"),
        ("{\"services\": tru}", "line 1, column 14 (byte offset 13): expected true, false or null, found 't'"),
        ("{\"services\": []} {}", "line 1, column 18 (byte offset 17): '{' after the end of the JSON value"),
    ])
    func aSyntaxErrorSaysWhere(_ text: String, _ expected: String) {
        #expect(Self.failure(text) == "$: not JSON: " + expected)
    }

    @Test func deepNestingIsLocatedWithoutRecursion() {
        let depth = 200_000
        let text = String(repeating: "[", count: depth) + "}"
        #expect(Self.failure(text).contains("byte offset \(depth)): expected a value, found '}'"))
    }

    /// JSONSerialization also reads UTF-16 and UTF-32, told by their zero bytes; their
    /// faults are not placed in UTF-8 terms (found by Fuzz/DatabaseJSON.swift: "{\0}\0"
    /// parses, and a first cut blamed its byte 1).
    @Test func utf16IsNotPlacedAsUTF8() {
        let broken = Data(Array("{\"services\": [".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        let failure = Self.failure(broken)
        #expect(failure.hasPrefix("$: not JSON: ") && !failure.contains("byte offset"), "\(failure)")
        #expect(JSONSyntaxError.locate(in: Data([0x7B, 0x00, 0x7D, 0x00])) == nil)
    }
}
