import ATT
import GATT

/// Replays the client-role vectors of `gatt-vectors.json` against ``GATTLink``:
/// the plug-in behind `attune conformance --role client`.
///
/// Each `tester->iut` PDU is fed to the client; each `iut->tester` PDU must be the next
/// PDU the client sent, byte for byte, and no PDU may be left unmatched at the end. The
/// test's `iut_action` becomes a client command, and its `expect` object is checked
/// against what the client reported (ATT error, value, success, discovered database).
///
/// Two start-up modes (conformance README):
/// - ``StartupMode/fullBootstrap``: the client starts with an empty cache and discovers
///   the database itself. Attune's discovery order is BlueZ's, so the setup-phase PDUs
///   are replayed too, and the discovered database is compared with the named one.
/// - ``StartupMode/seededCache``: the client's cache is seeded from the named database;
///   only the Exchange MTU of the setup phase and then the procedure phase are replayed.
public struct ClientVectorRunner: ClientVectorRunning {
    public enum StartupMode: String, Sendable, CaseIterable {
        case fullBootstrap = "full"
        case seededCache = "seeded"
    }

    public var mode: StartupMode

    public init(mode: StartupMode = .fullBootstrap) {
        self.mode = mode
    }

    /// Vectors where Attune behaves differently from BlueZ on purpose. In both, the
    /// tester's Read Response is 513 bytes at ATT_MTU 512, longer than any PDU the spec
    /// allows. BlueZ truncates it silently; Attune rejects it as a protocol violation
    /// (``ProtocolViolation/Reason/exceedsATTMTU(length:mtu:)``) and fails the read, so a
    /// value is never altered without notice. They are reported as not run, with this
    /// reason, rather than as failures.
    public static let expectedDivergences: [String: String] = [
        "/TP/GAR/CL/BV-04-C/512B": "documented divergence: a 513-byte Read Response at ATT_MTU 512 is rejected as a protocol violation, not truncated",
        "/TP/GAR/CL/BV-07-C/512B": "documented divergence: a 513-byte Read Response at ATT_MTU 512 is rejected as a protocol violation, not truncated",
    ]

    public func run(_ vector: ConformanceVector, databases: [String: AttributeDatabase]) -> ConformanceOutcome {
        if let why = Self.expectedDivergences[vector.id] { return .notRun(why) }
        let expected = vector.database.flatMap { databases[$0] }.map(DiscoveredDatabase.init(expectedFrom:))
        if vector.database != nil && expected == nil { return .notRun("database \(vector.database!) not loaded") }
        var replay = ClientVectorReplay(vector: vector, expectedDatabase: expected, mode: mode)
        replay.run()
        return replay.divergence.map { .failed($0) } ?? .passed
    }

    /// Runs one vector and returns the transcript too, for logs and tests.
    public func runWithTranscript(_ vector: ConformanceVector, databases: [String: AttributeDatabase]) -> (ConformanceOutcome, [String]) {
        let expected = vector.database.flatMap { databases[$0] }.map(DiscoveredDatabase.init(expectedFrom:))
        var replay = ClientVectorReplay(vector: vector, expectedDatabase: expected, mode: mode)
        replay.run()
        return (replay.divergence.map { .failed($0) } ?? .passed, replay.transcript)
    }
}
