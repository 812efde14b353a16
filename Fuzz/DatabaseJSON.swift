// fuzz-modules: BluetoothCore ATT CCrypto BluetoothCrypto GATT
// libFuzzer target: arbitrary bytes as a `serve` database file and as a multi-database
// file (the two JSON forms `attune serve` and `attune conformance` load). Nothing may
// trap: every value, length and handle is range-checked with its JSON path, and a
// database that loads builds into an AttributeDatabase or fails with a typed error
// whose text stays capped. A syntax error is located inside the file, and never in a
// file JSONSerialization parses.
import Foundation
import GATT

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDatabaseJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    do {
        let definitions = try DatabaseJSON.serviceDefinitions(from: bytes)
        _ = try? AttributeDatabase(services: definitions)
    } catch {
        // Errors are capped (ten problems, then a count): a hostile file cannot make a huge one.
        precondition("\(error)".utf8.count < 64 * 1024, "an unbounded database error")
    }
    _ = try? DatabaseJSON.databases(from: bytes)
    // JSON that Foundation parses has no syntax error to report; in JSON it refuses, the
    // one reported lies inside the file (or at its end).
    if (try? JSONSerialization.jsonObject(with: bytes)) != nil {
        precondition(JSONSyntaxError.locate(in: bytes) == nil, "a syntax error reported in JSON that parses")
    } else if let syntax = JSONSyntaxError.locate(in: bytes) {
        precondition(syntax.offset <= size && syntax.line >= 1 && syntax.column >= 1 && syntax.column <= syntax.offset + 1,
                     "a syntax error outside the file: \(syntax)")
    }
    return 0
}
