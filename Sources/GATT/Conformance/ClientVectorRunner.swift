import ATT
import Foundation

/// Replays the client-role vectors of `gatt-vectors.json` against ``GATTClientConnection``.
///
/// Each `tester->iut` PDU is fed to the client; each `iut->tester` PDU must be the next
/// PDU the client sent, byte for byte. The test's `iut_action` becomes a client command,
/// and its `expect` object is checked against what the client reported.
///
/// Two start-up modes (conformance README):
/// - ``StartupMode/fullBootstrap``: the client starts with an empty cache and discovers
///   the database itself; its discovery order matches BlueZ's, so the setup-phase PDUs
///   are replayed too.
/// - ``StartupMode/seededCache``: the client's cache is seeded from the named database;
///   only the Exchange MTU of the setup phase and then the procedure phase are replayed.
public struct ClientVectorRunner: Sendable {
    public enum StartupMode: String, Sendable, CaseIterable {
        case fullBootstrap = "full"
        case seededCache = "seeded"
    }

    /// The result of one vector.
    public struct Outcome: Sendable, CustomStringConvertible {
        public var id: String
        public var mode: StartupMode
        public var passed: Bool
        /// Why the test differs on purpose, when it is a documented divergence.
        public var expectedDivergence: String?
        public var failures: [String]
        /// Every PDU in order, for the log.
        public var transcript: [String]

        public var description: String {
            let verdict = passed ? "PASS" : (expectedDivergence != nil ? "DIVERGES (expected)" : "FAIL")
            return "\(verdict) \(id) [\(mode.rawValue)]" + (failures.isEmpty ? "" : ": " + failures.joined(separator: "; "))
        }
    }

    /// Vectors where Attune behaves differently from BlueZ on purpose. The tester's
    /// 513-byte Read Response at ATT_MTU 512 is longer than any PDU the spec allows;
    /// BlueZ truncates it silently, Attune rejects it as a protocol violation
    /// (``ProtocolViolation/Reason/exceedsATTMTU(length:mtu:)``) so a value is never
    /// altered without notice.
    public static let expectedDivergences: [String: String] = [
        "/TP/GAR/CL/BV-04-C/512B": "513-byte Read Response at ATT_MTU 512 is rejected as a protocol violation, not truncated",
        "/TP/GAR/CL/BV-07-C/512B": "513-byte Read Response at ATT_MTU 512 is rejected as a protocol violation, not truncated",
    ]

    let tests: [ConformanceJSON]
    let databases: [String: ConformanceJSON]

    /// Loads both fixture files.
    public init(vectors: Data, databases: Data) throws {
        tests = (try ConformanceJSON(parsing: vectors))["tests"]?.array.filter { $0["role"]?.string == "client" } ?? []
        self.databases = (try ConformanceJSON(parsing: databases))["databases"]?.object ?? [:]
    }

    /// Loads `gatt-vectors.json` and `gatt-dbs.json` from a directory.
    public init(directory: String) throws {
        try self.init(vectors: try Data(contentsOf: URL(fileURLWithPath: directory + "/gatt-vectors.json")),
                      databases: try Data(contentsOf: URL(fileURLWithPath: directory + "/gatt-dbs.json")))
    }

    /// The ids of every client vector, in file order.
    public var vectorIDs: [String] { tests.compactMap { $0["id"]?.string } }

    /// Runs every client vector whose id contains `filter` (all when nil).
    public func runAll(mode: StartupMode, filter: String? = nil) -> [Outcome] {
        vectorIDs.filter { filter == nil || $0.contains(filter!) }.map { run(id: $0, mode: mode) }
    }

    /// Runs one vector.
    public func run(id: String, mode: StartupMode) -> Outcome {
        guard let test = tests.first(where: { $0["id"]?.string == id }) else {
            return Outcome(id: id, mode: mode, passed: false, failures: ["no such client vector"], transcript: [])
        }
        var replay = ClientVectorReplay(test: test, databases: databases, mode: mode)
        replay.run()
        let divergence = Self.expectedDivergences[id]
        return Outcome(id: id, mode: mode, passed: replay.failures.isEmpty, expectedDivergence: divergence,
                       failures: replay.failures, transcript: replay.transcript)
    }
}
