// fuzz-modules: CCrypto BluetoothCore ATT ATTPresentation GATT HCI Capture Replay
// libFuzzer target: arbitrary bytes as a conformance vector file (`gatt-vectors.json`,
// what `attune conformance` loads). Loading ends in vectors or one typed error, never a
// trap: every number is range-checked with its JSON path, every PDU is hex. Whatever
// loads is then run, by both runners, against the fixture databases: a vector is input
// from a file too, and a hostile one must end in an outcome.
import Foundation
import GATT
import Replay

/// The fixture databases, loaded once (the fuzzer runs from the package root).
let fixtureDatabases: [String: AttributeDatabase] = {
    guard let data = FileManager.default.contents(atPath: "Fixtures/conformance/gatt-dbs.json"),
          let databases = try? DatabaseJSON.databases(from: data, cccd: .stored) else { return [:] }
    return databases
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConformanceVectors(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    let vectors: [ConformanceVector]
    do {
        vectors = try ConformanceVector.load(from: bytes)
    } catch {
        precondition("\(error)".utf8.count < 64 * 1024, "an unbounded vector error")
        return 0
    }
    let suite = ConformanceSuite(vectors: vectors, databases: fixtureDatabases)
    for result in suite.run() {
        _ = "\(result.outcome)"
    }
    return 0
}
