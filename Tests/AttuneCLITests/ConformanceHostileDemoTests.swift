import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// `attune conformance --against` over memory against a demo peripheral made to misbehave
/// (`ATTUNE_CONFORMANCE_DEMO_FAULT`): one that drops the link mid-run, and one slow enough
/// to interrupt mid-run with SIGINT.
@Suite struct ConformanceHostileDemoTests {
    static let demo = "C0:00:00:00:00:01"
    static let fault = "ATTUNE_CONFORMANCE_DEMO_FAULT"

    @Test func aLinkDroppedMidRunLosesOneTestAndTheRunGoesOnOverANewLink() async throws {
        // The 120th PDU of the tester comes well after discovery (about 80 PDUs).
        let run = try await AttuneProcess.run(["conformance", "--against", Self.demo, "--transport", "memory", "--json"],
                                              environment: [Self.fault: "drop-link-at=120"])
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        let objects = try run.stdoutLines.dropLast().map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
        let list = try await AttuneProcess.run(["conformance", "--list"])
        #expect(objects.count == list.stdoutLines.count, "every test has a report")
        let inconclusive = objects.filter { $0["verdict"] as? String == "inconclusive" }
        #expect(inconclusive.count == 1, "\(run.stdout)")
        #expect((inconclusive.first?["reason"] as? String)?.contains("the link was lost") == true)
        #expect(run.stderr.contains("a new link to the IUT"))
        #expect(objects.filter { $0["verdict"] as? String == "pass" }.count > 40, "the tests after the loss ran")
    }

    @Test func ctrlCEndsTheRunAndStillWritesTheJUnitOfTheTestsRunSoFar() async throws {
        let junit = AttuneProcess.temporaryFile(".xml")
        defer { unlink(junit) }
        // 20 ms a PDU: some 12 s for the whole run, so the first verdict line comes mid-run.
        let run = try await AttuneProcess.run(["conformance", "--against", Self.demo, "--transport", "memory",
                                               "--junit", junit],
                                              interruptAfterLines: 1, environment: [Self.fault: "delay-ms=20"])
        #expect(run.status == 130, "\(run.stdout)\n\(run.stderr)")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        let parser = XMLParser(data: Data(xml.utf8))
        #expect(parser.parse(), "well-formed: \(xml)")
        let verdictLines = run.stdoutLines.filter { $0.range(of: #"^[A-Z_]+  \S+"#, options: .regularExpression) != nil }
        let cases = xml.components(separatedBy: "<testcase ").count - 1
        #expect(cases >= 1 && cases == verdictLines.count, "the tests run so far: \(verdictLines)\n\(xml)")
        let list = try await AttuneProcess.run(["conformance", "--list"])
        #expect(cases < list.stdoutLines.count, "interrupted mid-run")
    }
}
