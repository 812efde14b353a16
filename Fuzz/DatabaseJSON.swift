// fuzz-modules: BluetoothCore ATT CCrypto BluetoothCrypto GATT
// libFuzzer target: arbitrary bytes as a `serve` database file and as a multi-database
// file (the two JSON forms `attune serve` and `attune conformance` load). Nothing may
// trap: every value, length and handle is range-checked with its JSON path, and a
// database that loads builds into an AttributeDatabase or fails with a typed error
// whose text stays capped.
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
    return 0
}
