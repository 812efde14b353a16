import Foundation
import Testing

/// `attune conformance --against ADDR --html FILE`: the CLI writes the report page of
/// the run it printed. (The page itself is tested in ConformanceTests, in Chromium too.)
@Suite struct ConformanceHTMLOptionTests {
    @Test func htmlWritesThePageOfTheRun() async throws {
        let html = AttuneProcess.temporaryFile(".html")
        defer { unlink(html) }
        let run = try await AttuneProcess.run(["conformance", "--against", ConformanceAgainstTests.demo, "--transport", "memory",
                                               "--only", "GATT/SR/GAR/BV-01-C", "--only", "GATT/SR/UNS/BI-01-C",
                                               "--html", html])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdoutLines.last == "2 passed, 0 failed, 0 inconclusive, 0 not applicable")
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(page.contains("2 passed, 0 failed, 0 inconclusive, 0 not applicable"))
        #expect(page.contains("id=\"count-pass\">2<") && page.contains("id=\"count-total\">2<"))
        #expect(page.contains("<code>GATT/SR/GAR/BV-01-C</code> Read Characteristic Value"))
        #expect(page.contains("<code>GATT/SR/UNS/BI-01-C</code>"))
        #expect(page.contains("--against C0:00:00:00:00:01"))
        #expect(!page.contains("http"))
    }

    @Test func htmlGoesWithAgainst() async throws {
        let run = try await AttuneProcess.run(["conformance", "vectors.json", "--html", "/tmp/never-written.html"])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("--html goes with --against ADDR"))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never-written.html"))
    }

    @Test func anUnwritableHTMLFileIsAnError() async throws {
        let run = try await AttuneProcess.run(["conformance", "--against", ConformanceAgainstTests.demo, "--transport", "memory",
                                               "--only", "GATT/SR/UNS/BI-01-C", "--html", "/nonexistent-dir/report.html"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("--html /nonexistent-dir/report.html: cannot write the file"))
    }
}
