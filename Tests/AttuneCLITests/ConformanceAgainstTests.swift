import Foundation
import Testing

/// `attune conformance --against ADDR --transport memory`: the server-role tests end to
/// end against the demo peripheral, with the JSON lines, the summary, the JUnit file and
/// the exit status the issue asks for.
@Suite struct ConformanceAgainstTests {
    static let demo = "C0:00:00:00:00:01"

    @Test func theServerTestsRunAgainstTheDemoOverMemory() async throws {
        let junit = AttuneProcess.temporaryFile(".xml")
        defer { unlink(junit) }
        let run = try await AttuneProcess.run(["conformance", "--against", Self.demo, "--transport", "memory", "--json",
                                               "--junit", junit])
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        let lines = run.stdoutLines
        let summary = try #require(lines.last)
        #expect(summary.range(of: #"^\d+ passed, 0 failed, \d+ inconclusive, \d+ not applicable$"#,
                              options: .regularExpression) != nil, "\(summary)")
        var ids: [String] = []
        var verdicts: [String] = []
        for line in lines.dropLast() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            let id = try #require(object["id"] as? String)
            let verdict = try #require(object["verdict"] as? String)
            let exchange = try #require(object["exchange"] as? [[String: String]])
            #expect(["pass", "fail", "inconclusive", "not_applicable"].contains(verdict))
            #expect(object["reason"] is String)
            if verdict == "pass" || verdict == "fail" {
                #expect(!exchange.isEmpty, "\(id) carries its exchange")
                #expect(exchange.first?["dir"] == "tester->iut")
                #expect(exchange.allSatisfy { ($0["pdu"] ?? "").range(of: "^([0-9a-f]{2})+$", options: .regularExpression) != nil })
            }
            ids.append(id)
            verdicts.append(verdict)
        }
        #expect(ids.contains("GATT/SR/GAR/BV-01-C") && ids.contains("GATT/SR/UNS/BI-01-C"))
        let counts = Dictionary(verdicts.map { ($0, 1) }, uniquingKeysWith: +)
        #expect(summary == "\(counts["pass", default: 0]) passed, 0 failed, \(counts["inconclusive", default: 0]) inconclusive, "
                + "\(counts["not_applicable", default: 0]) not applicable")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == ids.count)
        #expect(!xml.contains("<failure"))
    }

    @Test func onlyRepeatsAndTextLinesNameTheVerdict() async throws {
        let run = try await AttuneProcess.run(["conformance", "--against", Self.demo, "--transport", "memory",
                                               "--only", "GATT/SR/GAR/BI-01-C", "--only", "GATT/SR/UNS/BI-01-C"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdoutLines == ["PASS  GATT/SR/GAR/BI-01-C", "PASS  GATT/SR/UNS/BI-01-C",
                                    "2 passed, 0 failed, 0 inconclusive, 0 not applicable"])
    }

    @Test func listNamesEveryServerTestWithItsPrecondition() async throws {
        let run = try await AttuneProcess.run(["conformance", "--list"])
        #expect(run.status == 0)
        #expect(run.stdoutLines.count >= 30)
        #expect(run.stdoutLines.allSatisfy { ($0.hasPrefix("GATT/SR/") || $0.hasPrefix("ATTUNE/SR/ROB/")) && $0.contains("needs:") })
    }

    @Test(arguments: [["--only", "GATT/SR/NOPE/BV-99-C"], ["--address-type", "static"], ["--role", "client"]])
    func aBadOptionIsAUsageError(_ extra: [String]) async throws {
        let run = try await AttuneProcess.run(["conformance", "--against", Self.demo, "--transport", "memory"] + extra)
        #expect(run.status == 2, "\(run.stderr)")
    }
}
