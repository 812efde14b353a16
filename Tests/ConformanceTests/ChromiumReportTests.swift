import Conformance
import Foundation
import GATTTestSupport
import Testing

/// The HTML report of a real run (the tester against our engine with a broken rule, so
/// there are fails) rendered in headless Chromium: it loads with no console message,
/// the summary in the rendered DOM holds the run's counts, and the screenshot is not
/// blank. Each check is also shown failing on a page broken for it.
@Suite(.serialized) struct ChromiumReportTests {
    struct Rendered {
        var run: LoopbackRun
        var check: RenderedReportCheck
    }

    /// Renders the run's page, changed by `breaking`, and a blank page to compare with.
    static func render(breaking: (String, VerdictCounts) -> String = { html, _ in html }) async throws -> Rendered {
        let chromium = try HeadlessChromium()
        let run = try HTMLReportTests.brokenRun()
        let html = breaking(ConformanceHTMLReport(reports: run.reports, target: "C0:00:00:00:00:01").html, VerdictCounts(run.reports))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("attune-html-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let page = dir.appendingPathComponent("report.html"), blank = dir.appendingPathComponent("blank.html")
        try Data(html.utf8).write(to: page)
        try Data("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head><body></body></html>\n".utf8).write(to: blank)
        let check = RenderedReportCheck(rendering: try await chromium.load(page), screenshot: try await chromium.screenshot(page),
                                        blankScreenshot: try await chromium.screenshot(blank))
        return Rendered(run: run, check: check)
    }

    @Test func theRunsPageLoadsCleanlyWithTheRunsCountsAndIsNotBlank() async throws {
        let r = try await Self.render()
        #expect(r.run.failed.count > 0 && r.run.reports.count > r.run.failed.count, "a run with passes and fails")
        #expect(r.check.consoleProblems == [])
        #expect(r.check.countProblems(r.run.reports) == [])
        #expect(r.check.blankProblems == [])
    }

    @Test func aPageWhoseScriptThrowsFailsTheConsoleCheck() async throws {
        let r = try await Self.render { html, _ in html.replacing("</body>", with: "<script>throw new Error('deliberately broken')</script></body>") }
        #expect(r.check.consoleProblems.contains { $0.contains("deliberately broken") }, "\(r.check.consoleProblems)")
        #expect(r.check.countProblems(r.run.reports) == [])
        #expect(r.check.blankProblems == [])
    }

    @Test func aPageWithAWrongCountFailsTheCountCheck() async throws {
        let r = try await Self.render { html, counts in
            let failed = counts.count("fail")
            return html.replacing("id=\"count-fail\">\(failed)<", with: "id=\"count-fail\">\(failed + 1)<")
        }
        #expect(r.check.countProblems(r.run.reports).count == 1, "\(r.check.countProblems(r.run.reports))")
        #expect(r.check.consoleProblems == [])
        #expect(r.check.blankProblems == [])
    }

    @Test func aPageThatShowsNothingFailsTheBlankCheck() async throws {
        let r = try await Self.render { html, _ in html.replacing("</head>", with: "<style>body { visibility: hidden; }</style></head>") }
        #expect(r.check.blankProblems.count == 1, "\(r.check.blankProblems)")
        #expect(r.check.consoleProblems == [])
        #expect(r.check.countProblems(r.run.reports) == [])
    }

    @Test func withoutChromiumTheTestsFailSayingToRunSetup() {
        #expect {
            _ = try HeadlessChromium(executable: "/nonexistent/chromium")
        } throws: { error in
            "\(error)".contains("run Scripts/setup.sh")
        }
    }
}
