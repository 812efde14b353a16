import FixtureTestSupport
import Foundation
import Replay
import Testing

/// Malformed vector files get errors that say what is wrong, where (JSON path and byte
/// offset), and never trap; each kind of fault its own message.
@Suite struct VectorFileTests {
    static func error(_ text: String) -> String {
        do {
            _ = try ConformanceVector.load(from: Data(text.utf8))
            return "loaded"
        } catch {
            return error.description
        }
    }

    @Test func aSyntaxErrorNamesItsPathAndByte() {
        let e = Self.error(#"{"tests": [{"id": "a" "role": "server"}]}"#)
        #expect(e == "invalid vectors: $.tests[0] at byte 22: syntax error: expected ',' or '}', found '\"'", "\(e)")
    }

    @Test func nestingTooDeepIsItsOwnError() {
        let e = Self.error(#"{"tests": [{"x": "# + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}]}")
        #expect(e.contains("nesting deeper than 64 levels"), "\(e)")
        #expect(e.contains("$.tests[0].x"), "\(e)")
    }

    @Test func aNumberBeyondDoubleIsOutOfRange() {
        let e = Self.error(#"{"tests": [{"id": "a", "role": "server", "exchange": [], "iut": {"rx_mtu": 1e400}}]}"#)
        #expect(e == "invalid vectors: $.tests[0].iut.rx_mtu at byte 75: number 1e400 is out of range", "\(e)")
    }

    @Test func testsThatAreNotObjectsAreNamed() {
        let e = Self.error(#"{"tests": [1, 2]}"#)
        #expect(e == "invalid vectors: $.tests[0] at byte 11: expected a test vector object, not 1", "\(e)")
    }

    @Test func otherShapesSayWhatWasExpected() {
        #expect(Self.error("") == "invalid vectors: $ at byte 0: empty file: expected an object with a \"tests\" array")
        #expect(Self.error("[]") == "invalid vectors: $ at byte 0: expected an object with a \"tests\" array, found '['")
        #expect(Self.error(#"{"other": 1}"#) == "invalid vectors: $: expected an object with a \"tests\" array")
        #expect(Self.error(#"{"tests": {}}"#) == "invalid vectors: $.tests at byte 10: expected an array of test vectors, found '{'")
        #expect(Self.error(#"{"tests": []} x"#) == "invalid vectors: $ at byte 14: syntax error: 'x' after the document")
        #expect(Self.error(#"{"tests": ["\ud800"]}"#).contains("low surrogate"))
    }

    /// A huge or fractional rx_mtu is refused, not taken as 512.
    @Test(arguments: ["70000", "22", "512.5", "\"512\""])
    func rxMTUOutOfRangeIsRefused(_ value: String) {
        let e = Self.error(#"{"tests": [{"id": "a", "role": "server", "exchange": [], "iut": {"rx_mtu": "# + value + "}}]}")
        #expect(e.contains("tests[0].iut.rx_mtu"), "\(e)")
        #expect(e.contains("(test at byte 11)"), "\(e)")
    }

    /// The file streams: a vector file is read one vector at a time through a file.
    @Test func theSharedFileStreamsAsItLoads() throws {
        var count = 0
        try ConformanceVector.forEach(inFile: Fixtures.vectors) { _ in count += 1 }
        #expect(count == (try ConformanceVector.load(from: try Data(contentsOf: URL(fileURLWithPath: Fixtures.vectors)))).count)
        #expect(count > 100)
    }

    /// A database file's syntax error is placed too (the database loader gives no position).
    @Test func aDatabaseSyntaxErrorNamesItsPathAndByte() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("attune-db-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(#"{"databases": {"a": {"attributes": [}}}"#.utf8)))
        do {
            _ = try ConformanceSuite(databasesFile: path)
            Issue.record("loaded")
        } catch {
            #expect(error.description == "invalid databases: $.databases.a.attributes[0]: at byte 36: syntax error: expected a value, found '}'",
                    "\(error)")
        }
    }
}
