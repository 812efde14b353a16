import Conformance
import BluetoothCore
import GATT
import GATTTestSupport
import Testing

/// Our server engine with one rule broken: exactly the tests that judge that rule fail,
/// and every other test keeps the verdict it has against the healthy engine. So none of
/// these checks can pass whatever the IUT does.
@Suite struct BrokenServerTests {
    /// The tests each fault must fail, and no others.
    static let governed: [ServerFault: Set<String>] = [
        .errorNamesWrongHandle: [
            "GATT/SR/GAR/BI-01-C", "GATT/SR/GAR/BI-02-C", "GATT/SR/GAR/BI-06-C", "GATT/SR/GAR/BI-12-C",
            "GATT/SR/GAR/BI-13-C", "GATT/SR/GAR/BI-14-C", "GATT/SR/GAR/BI-18-C", "GATT/SR/GAR/BI-19-C",
            "GATT/SR/GAR/BI-24-C", "GATT/SR/GAR/BI-28-C", "GATT/SR/GAR/BI-29-C",
            "GATT/SR/GAW/BI-02-C", "GATT/SR/GAW/BI-03-C", "GATT/SR/GAW/BI-07-C", "GATT/SR/GAW/BI-08-C",
            "GATT/SR/GAW/BI-14-C", "GATT/SR/GAW/BI-15-C", "GATT/SR/GAW/BI-20-C", "GATT/SR/GAW/BI-26-C",
            "ATTUNE/SR/ROB/BLOB-01", "ATTUNE/SR/ROB/BLOB-02", "ATTUNE/SR/ROB/HDL-01", "ATTUNE/SR/ROB/HDL-02",
            "ATTUNE/SR/ROB/HDL-03",
        ],
        .readBlobIgnoresOffset: ["GATT/SR/GAR/BV-04-C", "GATT/SR/GAR/BV-07-C", "GATT/SR/GAR/BI-13-C", "GATT/SR/GAR/BI-29-C",
                                 "ATTUNE/SR/ROB/BLOB-02"],
        .characteristicDiscoveryIgnoresRangeEnd: ["GATT/SR/GAD/BV-04-C", "GATT/SR/GAD/BV-05-C"],
        .notFoundNamesWrongHandle: [
            // Not GAD/BV-03 or BV-06: their walks reach the end of their range before
            // the IUT has to say Attribute Not Found.
            "GATT/SR/GAD/BV-01-C", "GATT/SR/GAD/BV-02-C", "GATT/SR/GAD/BV-04-C", "GATT/SR/GAD/BV-05-C",
            "GATT/SR/GAR/BI-07-C",
        ],
        .answersUnknownCommands: ["GATT/SR/UNS/BI-02-C"],
        // The robustness probes' own rules.
        .acceptsOverlongValues: ["ATTUNE/SR/ROB/WR-02"],
        .prepareQueueFullMisnamed: ["ATTUNE/SR/ROB/PQ-01"],
        .invalidPDUMisnamed: ["ATTUNE/SR/ROB/PDU-01"],
    ]

    /// Verdicts a fault changes without a failure: a test whose precondition needs what
    /// the broken rule keeps the tester from learning.
    static let sideEffects: [ServerFault: [String: String]] = [
        // The long User Description cannot be read whole to be written back.
        // Nor the long value, so the Read Blob probe on it has no value to judge by.
        .readBlobIgnoresOffset: ["GATT/SR/GAW/BV-09-C": "not_applicable", "ATTUNE/SR/ROB/BLOB-01": "not_applicable"],
    ]

    @Test(arguments: ServerFault.allCases)
    func exactlyTheTestsGovernedByTheBrokenRuleFail(_ fault: ServerFault) throws {
        let database = try ConformanceTestDatabase.make()
        let healthy = LoopbackRun(ServerUnderTest(database: database))
        let broken = LoopbackRun(ServerUnderTest(database: database, fault: fault))
        let expected = try #require(Self.governed[fault])
        #expect(broken.failed == expected, "\(fault):\n\(broken.summary)")
        for report in broken.reports where !expected.contains(report.id) {
            let wanted = Self.sideEffects[fault]?[report.id] ?? healthy.verdicts[report.id]?.name
            #expect(report.verdict.name == wanted, "\(fault): \(report.id) \(report.verdict)")
        }
        for report in broken.reports where report.verdict.isFailure {
            #expect(!report.exchange.isEmpty, "\(report.id) fails on the PDUs it names")
        }
    }
}
