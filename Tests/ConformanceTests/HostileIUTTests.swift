import Conformance
import BluetoothCore
import GATT
import GATTTestSupport
import Testing

/// An IUT that turns hostile after discovery: it disconnects mid-test, stops answering,
/// answers garbage, or floods notifications. Every test still ends with a verdict and a
/// reason, the run goes on (over a new link when the old one is gone), and what the
/// tester keeps stays bounded. Time is injected: the 30 s timeouts take no real time.
@Suite struct HostileIUTTests {
    /// The test the IUT turns hostile at. Its first PDU, a Read Request of a handle no
    /// attribute has, is one discovery never sends.
    static let turningPoint = "GATT/SR/GAR/BI-01-C"

    /// The first PDU the tester sends in the test `id`, from a run against the healthy engine.
    static func firstPDU(of id: String, healthy: LoopbackRun) throws -> [UInt8] {
        try #require(healthy.reports.first { $0.id == id }?.exchange.first?.bytes)
    }

    static func tests(after id: String) -> Set<String> {
        let ids = ServerTestCatalog.all.map(\.id)
        return Set(ids.drop { $0 != id }.dropFirst())
    }

    @Test func aDisconnectMidTestLeavesThatTestInconclusiveAndTheRunGoesOnOverANewLink() throws {
        let database = try ConformanceTestDatabase.make()
        let healthy = LoopbackRun(ServerUnderTest(database: database))
        let trigger = try Self.firstPDU(of: Self.turningPoint, healthy: healthy)
        var dropped = false
        let run = LoopbackRun(ServerUnderTest(database: database), disconnects: { pdu in
            guard !dropped, pdu == trigger else { return false }
            dropped = true
            return true
        })
        #expect(run.reports.map(\.id) == ServerTestCatalog.all.map(\.id), "every test has a report")
        #expect(run.restarts == 1)
        let lost = try #require(run.verdicts[Self.turningPoint])
        #expect(lost.name == "inconclusive" && lost.reason.contains("lost"), "\(lost)")
        for report in run.reports where report.id != Self.turningPoint {
            #expect(report.verdict.name == healthy.verdicts[report.id]?.name, "\(report.id): \(report.verdict)")
        }
    }

    @Test func anIUTThatStopsAnsweringFailsTheTestAndTheRunGivesUpAfterTheNewLinksAllowed() throws {
        let database = try ConformanceTestDatabase.make()
        let healthy = LoopbackRun(ServerUnderTest(database: database))
        let trigger = try Self.firstPDU(of: Self.turningPoint, healthy: healthy)
        var silent = false
        let run = LoopbackRun(ServerUnderTest(database: database), drops: { pdu in
            if pdu == trigger { silent = true }
            return silent
        })
        #expect(run.reports.map(\.id) == ServerTestCatalog.all.map(\.id), "every test has a report")
        let timedOut = try #require(run.verdicts[Self.turningPoint])
        #expect(timedOut.isFailure && timedOut.reason.contains("30"), "\(timedOut)")
        // Each new link's Exchange MTU times out too, until the restarts run out.
        #expect(run.restarts == ServerConformanceTester.Configuration().maximumLinkRestarts)
        #expect(run.elapsed == .seconds(30 * (1 + run.restarts)), "one transaction timeout per link")
        for id in Self.tests(after: Self.turningPoint) {
            let v = try #require(run.verdicts[id])
            #expect(v.name == "inconclusive" && v.reason.contains("gave up"), "\(id): \(v)")
        }
    }

    @Test func garbageAnswersFailTheirTestsWithTheReasonAndTheRunGoesOn() throws {
        let database = try ConformanceTestDatabase.make()
        let healthy = LoopbackRun(ServerUnderTest(database: database))
        let trigger = try Self.firstPDU(of: Self.turningPoint, healthy: healthy)
        var hostile = false
        let run = LoopbackRun(ServerUnderTest(database: database), rewrite: { request, answers in
            if request == trigger { hostile = true }
            // An opcode no ATT version assigns, with a stray parameter.
            return hostile ? answers.map { _ in [0xEE, 0x01] } : answers
        })
        #expect(run.reports.map(\.id) == ServerTestCatalog.all.map(\.id), "every test has a report")
        #expect(run.restarts == 0)
        for id in Self.tests(after: Self.turningPoint).union([Self.turningPoint]) {
            let v = try #require(run.verdicts[id])
            #expect(v.name == "fail" || v.name == "not_applicable", "\(id): \(v)")
            #expect(!v.reason.isEmpty, "\(id) says why")
        }
    }

    @Test func aNotificationFloodIsCountedNotRecordedAndChangesNoVerdict() throws {
        let database = try ConformanceTestDatabase.make()
        let healthy = LoopbackRun(ServerUnderTest(database: database))
        // 200 notifications of the Battery Level after every answer: over 10,000 in the run.
        let flood = [[UInt8]](repeating: [0x1B, 0x03, 0x00, 0x01], count: 200)
        var sent = 0
        let run = LoopbackRun(ServerUnderTest(database: database), rewrite: { _, answers in
            sent += flood.count
            return answers + flood
        })
        #expect(sent > 10_000)
        #expect(run.reports.map(\.id) == healthy.reports.map(\.id))
        for report in run.reports {
            #expect(report.verdict.name == healthy.verdicts[report.id]?.name, "\(report.id): \(report.verdict)")
            let before = healthy.reports.first { $0.id == report.id }?.exchange.count ?? 0
            #expect(report.exchange.count <= before + 1, "\(report.id) keeps no flood PDU")
        }
        #expect(run.reports.contains { $0.verdict.reason.contains("ignored, not recorded") })
    }
}
