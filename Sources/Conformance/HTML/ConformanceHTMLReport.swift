/// A run of `attune conformance --against` as one self-contained HTML page: a summary
/// table (counts per verdict, in all and per group), then each test with its id, title,
/// verdict, reason, the spec section it is judged by, and a ladder diagram of its PDUs
/// with the failing step marked.
///
/// The page fetches nothing: its style is inline and it has no script and no external
/// reference, so it opens the same from a CI artifact, a mail or a disk. Every text from
/// the IUT or the run is escaped by ``MarkupEscaping``.
public struct ConformanceHTMLReport: Sendable {
    public var reports: [ConformanceTestReport]
    /// The catalog entries the reports came from, for titles and spec sections.
    public var tests: [ServerTestCase]
    /// What the run was against, as the user named it (an address).
    public var target: String

    public init(reports: [ConformanceTestReport], tests: [ServerTestCase] = ServerTestCatalog.all, target: String) {
        self.reports = reports
        self.tests = tests
        self.target = target
    }

    /// The page.
    public var html: String {
        let title = "attune conformance --against \(MarkupEscaping.escape(target))"
        var out = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title)</title>
            <style>
            \(ConformanceHTMLStyle.css)
            </style>
            </head>
            <body>
            <h1>\(title)</h1>

            """
        let counts = VerdictCounts(reports)
        out += "<p class=\"totals\" id=\"totals\">\(counts.count("pass")) passed, \(counts.count("fail")) failed, "
            + "\(counts.count("inconclusive")) inconclusive, \(counts.count("not_applicable")) not applicable</p>\n"
        out += summaryTable(counts)
        out += failedLinks
        out += "<section class=\"tests\">\n"
        let catalog = Dictionary(tests.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for (index, report) in reports.enumerated() { out += section(report, catalog[report.id], index: index) }
        return out + "</section>\n</body>\n</html>\n"
    }

    /// Rows per group, a column per verdict; each count cell has an id
    /// (`count-GAR-fail`, and `count-fail` in the footer) so a test can read it back.
    private func summaryTable(_ counts: VerdictCounts) -> String {
        var out = "<table class=\"summary\">\n<thead><tr><th>Group</th>"
        for name in VerdictCounts.verdictNames { out += "<th class=\"v-\(name)\">\(Self.label(name))</th>" }
        out += "<th>total</th></tr></thead>\n<tbody>\n"
        for group in counts.groups {
            let g = MarkupEscaping.escape(group)
            out += "<tr><th>\(g)</th>"
            var total = 0
            for name in VerdictCounts.verdictNames {
                let n = counts.count(name, group: group)
                total += n
                out += "<td id=\"count-\(g)-\(name)\">\(n)</td>"
            }
            out += "<td id=\"count-\(g)-total\">\(total)</td></tr>\n"
        }
        out += "</tbody>\n<tfoot><tr><th>all</th>"
        for name in VerdictCounts.verdictNames { out += "<td id=\"count-\(name)\">\(counts.count(name))</td>" }
        return out + "<td id=\"count-total\">\(reports.count)</td></tr></tfoot>\n</table>\n"
    }

    /// The failed tests, each a link to its section on this page, so a long run's few
    /// failures are one click away; empty when nothing failed.
    private var failedLinks: String {
        let links = reports.enumerated().filter { $0.element.verdict.isFailure }.map { index, report in
            "<a href=\"#test-\(index + 1)\">\(MarkupEscaping.escape(report.id))</a>"
        }
        return links.isEmpty ? "" : "<p class=\"failed\">Failed: \(links.joined(separator: ", "))</p>\n"
    }

    /// One test: a `<details>` (open when it failed, so a failure is seen without a
    /// click, and no script is needed to fold the rest).
    private func section(_ report: ConformanceTestReport, _ test: ServerTestCase?, index: Int) -> String {
        let verdict = report.verdict.name
        var out = "<details class=\"test verdict-\(verdict)\" id=\"test-\(index + 1)\"\(report.verdict.isFailure ? " open" : "")>\n"
        out += "<summary><span class=\"badge v-\(verdict)\">\(Self.label(verdict).uppercased())</span> "
            + "<code>\(MarkupEscaping.escape(report.id))</code> \(MarkupEscaping.escape(test?.title ?? ""))</summary>\n<dl>\n"
        out += "<dt>Verdict</dt><dd class=\"v-\(verdict)\">\(Self.label(verdict))</dd>\n"
        let reason = report.verdict.reason
        out += "<dt>\(verdict == "pass" ? "Note" : "Reason")</dt><dd class=\"reason\">"
            + "\(reason.isEmpty ? "&#8212;" : MarkupEscaping.escape(reason))</dd>\n"
        if let test {
            out += "<dt>Judged by</dt><dd class=\"spec\">Core 5.4 \(MarkupEscaping.escape(test.specSection))</dd>\n"
            out += "<dt>Precondition</dt><dd>\(MarkupEscaping.escape(test.precondition))</dd>\n"
        }
        out += "</dl>\n"
        var ladder = LadderDiagram(exchange: report.exchange, failingStep: LadderDiagram.failingStep(of: report))
        ladder.failingAnchor = "test-\(index + 1)-failing-step"
        return out + ladder.html + "</details>\n"
    }

    /// A verdict name as people read it: `not_applicable` is "not applicable".
    private static func label(_ name: String) -> String { name.replacing("_", with: " ") }
}
