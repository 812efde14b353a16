import ATT
import Conformance
import BluetoothCore
import GATT
import GATTTestSupport
import Testing

/// The tester against our own GATT server engine: every applicable test passes, and
/// every pass or fail carries the PDUs it rests on.
@Suite struct TesterAgainstOurServerTests {
    @Test func everyApplicableTestPassesAgainstOurServer() throws {
        let run = LoopbackRun(ServerUnderTest(database: try ConformanceTestDatabase.make()))
        #expect(run.reports.map(\.id) == ServerTestCatalog.all.map(\.id), "one report per test, in catalog order")
        for report in run.reports {
            guard case .pass = report.verdict else {
                Issue.record("\(report.id): \(report.verdict.name) \(report.verdict.reason)\n\(run.summary)")
                continue
            }
            #expect(report.exchange.first?.direction == .testerToIUT, "\(report.id) starts with the tester's PDU")
            #expect(report.exchange.contains { $0.direction == .iutToTester }, "\(report.id) has the IUT's answer")
        }
    }

    @Test func aDatabaseWithoutThePreconditionsGivesNotApplicableWithTheReason() throws {
        let bare = try AttributeDatabase(services: [
            ServiceDefinition(BluetoothUUID(0x180A), characteristics: [
                CharacteristicDefinition(BluetoothUUID(0x2A29), properties: [.read], value: Array("Attune".utf8)),
            ]),
        ])
        let run = LoopbackRun(ServerUnderTest(database: bare))
        #expect(run.failed.isEmpty, "\(run.summary)")
        let verdicts = run.verdicts
        #expect(verdicts["GATT/SR/GAD/BV-03-C"] == .notApplicable("discovery found no include declaration"))
        #expect(verdicts["GATT/SR/GAR/BI-02-C"] == .notApplicable("every characteristic has the Read property"))
        #expect(verdicts["GATT/SR/GAN/BV-01-C"]?.name == "not_applicable")
        #expect(verdicts["GATT/SR/GAR/BV-01-C"]?.name == "pass")
        for report in run.reports where report.verdict.name == "not_applicable" {
            #expect(!report.verdict.reason.isEmpty, "\(report.id) says why it does not apply")
        }
    }

    @Test func aRequestUnansweredFor30SecondsFailsItsTestAndTheRunGoesOnOverANewLink() throws {
        let tests = ServerTestCatalog.all.filter { ["GATT/SR/GAR/BV-05-C", "GATT/SR/GAR/BV-06-C"].contains($0.id) }
        let run = LoopbackRun(ServerUnderTest(database: try ConformanceTestDatabase.make()), tests: tests,
                              drops: { $0.first == ATTOpcode.readMultipleRequest.rawValue })
        let verdicts = run.verdicts
        guard case .fail(let reason)? = verdicts["GATT/SR/GAR/BV-05-C"] else {
            Issue.record("Read Multiple unanswered: \(run.summary)")
            return
        }
        #expect(reason.contains("30"), "\(reason)")
        // No request may follow a timeout on that bearer (§3.3.3): the next test runs on a new link.
        #expect(run.restarts == 1)
        #expect(verdicts["GATT/SR/GAR/BV-06-C"]?.name == "pass", "\(run.summary)")
        #expect(run.elapsed >= .seconds(30), "the injected clock, not a real wait, ran the timeout")
    }

    @Test func aMalformedAnswerToTheTestersDiscoveryFailsItsTestAndTheRunGoesOn() throws {
        // The first Read By Group Type for primary services answered with a list whose
        // length byte does not divide it: the walk ends, GAD/BV-01-C (which asks the same)
        // fails on it, and every other test still runs on what discovery found.
        let run = LoopbackRun(ServerUnderTest(database: try ConformanceTestDatabase.make()), rewrite: { request, answers in
            request == [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28] ? [[0x11, 0x06, 0x01, 0x00, 0x03, 0x00, 0x0F]] : answers
        })
        #expect(run.reports.map(\.id) == ServerTestCatalog.all.map(\.id), "every test has a report")
        guard case .fail(let reason)? = run.verdicts["GATT/SR/GAD/BV-01-C"] else {
            Issue.record("GAD/BV-01-C: \(run.summary)")
            return
        }
        #expect(reason.contains("malformed"), "\(reason)")
        #expect(run.verdicts["GATT/SR/GAC/BV-01-C"]?.name == "pass")
        #expect(run.verdicts["GATT/SR/UNS/BI-01-C"]?.name == "pass")
        #expect(run.reports.allSatisfy { $0.verdict.name != "inconclusive" }, "\(run.summary)")
    }

    @Test func onlyTheTestsNamedRun() {
        #expect(ServerTestCatalog.selecting(["GATT/SR/UNS/BI-01-C"])?.map(\.id) == ["GATT/SR/UNS/BI-01-C"])
        #expect(ServerTestCatalog.selecting(["GATT/SR/NOPE/BV-99-C"]) == nil)
        #expect(Set(ServerTestCatalog.all.map(\.id)).count == ServerTestCatalog.all.count, "ids are unique")
    }
}
