import ATT
import Foundation
import GATT

/// Loads vectors and databases and runs them: the library behind `attune conformance`.
public struct ConformanceSuite: Sendable {
    public var vectors: [ConformanceVector]
    /// Databases loaded as written: CCCDs are plain stored attributes shared by all
    /// clients, as the vectors' README says.
    public var databases: [String: AttributeDatabase]
    public var server = ServerVectorRunner()
    public var client: any ClientVectorRunning = ClientVectorRunner()

    public init(vectors: [ConformanceVector], databases: [String: AttributeDatabase]) {
        self.vectors = vectors
        self.databases = databases
    }

    /// Reads `gatt-dbs.json` only: the vectors are streamed by ``run(vectorsFile:role:only:_:)``.
    public init(databasesFile: String) throws(ConformanceError) {
        guard let d = FileManager.default.contents(atPath: databasesFile) else { throw .file("cannot read \(databasesFile)") }
        self.init(vectors: [], databases: try Self.databases(d))
    }

    /// The databases of a file, a syntax error placed by path and byte.
    static func databases(_ data: Data) throws(ConformanceError) -> [String: AttributeDatabase] {
        do {
            return try DatabaseJSON.databases(from: data, cccd: .stored)
        } catch {
            // GATT's loader places a syntax error by line and byte; a vector report names
            // the JSON path and byte, as it does for the vector file's own faults.
            if case .syntax(let fault) = error {
                throw .database(.json(path: fault.path, reason: "at byte \(fault.offset): syntax error: \(fault.reason)"))
            }
            throw .database(error)
        }
    }

    /// Runs the vectors of `role` (both when nil), or only the one named `only`, as the
    /// file is read: each result goes to `each` before the next vector is read, so memory
    /// holds one vector. A malformed file throws after the results of the vectors before
    /// the fault.
    public func run(vectorsFile: String, role: ConformanceVector.Role? = nil, only: String? = nil,
                    _ each: (ConformanceResult) -> Void) throws(ConformanceError) {
        try ConformanceVector.forEach(inFile: vectorsFile) { (v: ConformanceVector) throws(ConformanceError) in
            guard (role == nil || v.role == role) && (only == nil || v.id == only) else { return }
            let outcome = v.role == .server ? server.run(v, databases: databases) : client.run(v, databases: databases)
            each(ConformanceResult(id: v.id, role: v.role, outcome: outcome))
        }
    }

    /// Reads `gatt-vectors.json` and `gatt-dbs.json`.
    public init(vectorsFile: String, databasesFile: String) throws(ConformanceError) {
        guard let v = FileManager.default.contents(atPath: vectorsFile) else { throw .file("cannot read \(vectorsFile)") }
        guard let d = FileManager.default.contents(atPath: databasesFile) else { throw .file("cannot read \(databasesFile)") }
        let vectors = try ConformanceVector.load(from: v)
        self.init(vectors: vectors, databases: try Self.databases(d))
    }

    /// Runs the vectors of `role` (both when nil), or only the one named `only`.
    public func run(role: ConformanceVector.Role? = nil, only: String? = nil) -> [ConformanceResult] {
        vectors.filter { (role == nil || $0.role == role) && (only == nil || $0.id == only) }.map { v in
            let outcome = v.role == .server ? server.run(v, databases: databases) : client.run(v, databases: databases)
            return ConformanceResult(id: v.id, role: v.role, outcome: outcome)
        }
    }

    /// The report's last line: "N passed, M failed".
    public static func summary(_ results: [ConformanceResult]) -> String {
        let passed = results.filter { $0.outcome == .passed }.count
        let failed = results.filter { if case .failed = $0.outcome { true } else { false } }.count
        return "\(passed) passed, \(failed) failed"
    }
}
