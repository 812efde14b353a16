import Conformance
import Foundation
import GATTTestSupport
import Testing

/// The HTML report as text: its summary counts are the run's, it references nothing
/// outside itself, a fail's deciding PDU is marked, and nothing from the IUT or the
/// run becomes markup.
@Suite struct HTMLReportTests {
    /// Our engine answering Error Responses with the wrong handle: passes and fails.
    static func brokenRun() throws -> LoopbackRun {
        LoopbackRun(ServerUnderTest(database: try ConformanceTestDatabase.make(), fault: .errorNamesWrongHandle))
    }

    @Test func theSummaryCountsAreTheRunsPerVerdictAndPerGroup() throws {
        let run = try Self.brokenRun()
        let html = ConformanceHTMLReport(reports: run.reports, target: "C0:00:00:00:00:01").html
        let counts = SummaryCounts(html: html)
        #expect(counts["fail"] == run.failed.count && run.failed.count > 0)
        for name in VerdictCounts.verdictNames {
            #expect(counts[name] == run.reports.filter { $0.verdict.name == name }.count, "\(name)")
        }
        #expect(counts["total"] == run.reports.count)
        for group in ["GAC", "GAD", "GAR", "GAW", "GAN", "GAI", "UNS"] {
            for name in VerdictCounts.verdictNames {
                let wanted = run.reports.filter { $0.id.contains("/\(group)/") && $0.verdict.name == name }.count
                #expect(counts["\(group)-\(name)"] == wanted, "\(group) \(name)")
            }
        }
        #expect(html.contains("\(counts["pass"] ?? -1) passed, \(run.failed.count) failed"))
    }

    @Test func thePageReferencesNothingOutsideItselfAndHasNoScript() throws {
        let html = ConformanceHTMLReport(reports: try Self.brokenRun().reports, target: "C0:00:00:00:00:01").html
        for outside in ["http", "//", "src=", "url(", "@import", "<script", "<link"] {
            #expect(!html.contains(outside), "the page holds \(outside)")
        }
    }

    @Test func eachTestShowsItsIdTitleVerdictReasonAndSpecSection() throws {
        let run = try Self.brokenRun()
        let html = ConformanceHTMLReport(reports: run.reports, target: "x").html
        for test in ServerTestCatalog.all {
            let report = try #require(run.reports.first { $0.id == test.id })
            let section = try #require(Self.section(of: test.id, in: html), "\(test.id) has a section")
            #expect(section.contains(MarkupEscaping.escape(test.title)))
            #expect(section.contains("Core 5.4 \(MarkupEscaping.escape(test.specSection))"))
            #expect(section.contains("class=\"test verdict-\(report.verdict.name)\""))
            // (An empty needle is never "contained", so a pass without a note shows the dash.)
            let reason = report.verdict.reason
            #expect(section.contains(reason.isEmpty ? "&#8212;" : MarkupEscaping.escape(reason)))
            #expect(Self.occurrences(of: "<li class=\"step", in: section) == report.exchange.count, "\(test.id): one arrow per PDU")
            for pdu in report.exchange { #expect(section.contains(pdu.hex), "\(test.id): raw hex") }
        }
    }

    @Test func aFailsDecidingPDUIsMarkedAndNoOtherStepIs() throws {
        let run = try Self.brokenRun()
        let html = ConformanceHTMLReport(reports: run.reports, target: "x").html
        #expect(Self.occurrences(of: "failing step</strong>", in: html) == run.failed.count)
        for (index, report) in run.reports.enumerated() where report.verdict.isFailure {
            #expect(html.contains("<a href=\"#test-\(index + 1)\">\(report.id)</a>"), "the summary links to \(report.id)")
            #expect(html.contains("<details class=\"test verdict-fail\" id=\"test-\(index + 1)\" open>"))
        }
        #expect(Self.occurrences(of: "<a href=", in: html) == run.failed.count)
        for report in run.reports {
            let section = try #require(Self.section(of: report.id, in: html))
            guard report.verdict.isFailure else {
                #expect(!section.contains(" failing"), "\(report.id) marks no step")
                continue
            }
            // The IUT's Error Response naming the wrong handle is the last PDU and the marked one.
            let steps = section.components(separatedBy: "<li class=\"step").dropFirst()
            #expect(steps.last?.hasPrefix(" to-tester failing\"") == true, "\(report.id)")
            #expect(steps.last?.contains(report.exchange.last?.hex ?? "-") == true)
            #expect(steps.dropLast().allSatisfy { !$0.contains("failing") })
            #expect(section.contains("<b>Error Response</b>"), "decoded by our codec")
        }
    }

    @Test func hostileTextIsEscaped() {
        #expect(MarkupEscaping.escape("<script>alert(1)</script>") == "&lt;script&gt;alert(1)&lt;/script&gt;")
        #expect(MarkupEscaping.escape("a & b \"q\" 'p'") == "a &amp; b &quot;q&quot; &#39;p&#39;")
        #expect(MarkupEscaping.escape("&amp;") == "&amp;amp;", "escaped once more, never taken as already escaped")
        #expect(MarkupEscaping.escape("\u{0}\u{7}\u{1B}[31m\u{7F}\u{85}") == "\\x00\\x07\\x1b[31m\\x7f\\x85")
        #expect(MarkupEscaping.escape("tab\tline\nend é ✓ 😀") == "tab\tline\nend é ✓ 😀")
    }

    @Test func hostileTextFromTheIUTAndTheRunNeverBecomesMarkup() {
        let hostile = "<script>alert('x')</script>\"><img onerror=alert(1) src=x>&lt;\u{0}"
        let reports = [
            ConformanceTestReport(id: "GATT/SR/GAR/BV-01-C", verdict: .fail(hostile),
                                  exchange: [ExchangedPDU(.testerToIUT, [0x0A, 0x03, 0x00]),
                                             ExchangedPDU(.iutToTester, [0x0B] + Array(hostile.utf8))]),
            ConformanceTestReport(id: hostile, verdict: .inconclusive(hostile), exchange: [ExchangedPDU(.iutToTester, [0x55, 0x3C])]),
        ]
        let html = ConformanceHTMLReport(reports: reports, target: hostile).html
        #expect(!html.contains("<script"))
        #expect(!html.contains("<img"))
        #expect(html.contains("&quot;&gt;&lt;img onerror=alert(1) src=x&gt;&amp;lt;\\x00"))
        #expect(!html.contains("\u{0}"))
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"))
        #expect(html.contains("undecodable"), "an opcode our codec does not know says so")
    }

    /// The text of the `<details>` section of test `id`.
    static func section(of id: String, in html: String) -> String? {
        for part in html.components(separatedBy: "<details ").dropFirst()
        where part.contains("<code>\(MarkupEscaping.escape(id))</code>") {
            return part.components(separatedBy: "</details>").first
        }
        return nil
    }

    static func occurrences(of needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }
}
