import Conformance
import Foundation

/// The three checks of a report page Chromium rendered, each as the problems it found
/// (none when it holds), so a test can show each one catching a broken page.
struct RenderedReportCheck {
    var rendering: HeadlessChromium.Rendering
    var screenshot: [UInt8]
    /// A page with an empty body, shot the same way.
    var blankScreenshot: [UInt8]

    /// The page logged nothing: it has no script, so any console line means an error.
    var consoleProblems: [String] { rendering.consoleLines }

    /// The summary in the rendered DOM holds the run's counts, in all and per group.
    func countProblems(_ reports: [ConformanceTestReport]) -> [String] {
        let rendered = SummaryCounts(html: rendering.dom)
        let run = VerdictCounts(reports)
        var problems: [String] = []
        for name in VerdictCounts.verdictNames {
            if rendered[name] != run.count(name) { problems.append("\(name): \(String(describing: rendered[name])) vs \(run.count(name))") }
            for group in run.groups where rendered["\(group)-\(name)"] != run.count(name, group: group) {
                problems.append("\(group) \(name): \(String(describing: rendered["\(group)-\(name)"])) vs \(run.count(name, group: group))")
            }
        }
        if rendered["total"] != reports.count { problems.append("total: \(String(describing: rendered["total"])) vs \(reports.count)") }
        return problems
    }

    /// The screenshot shows something. No image library is at hand to inflate the pixels,
    /// so: both PNGs must be whole images of the same size (signature, IHDR), and the
    /// page's must take clearly more bytes than the blank one's. A uniform image deflates
    /// to almost nothing, so text and tables are what the extra bytes are.
    var blankProblems: [String] {
        guard let page = PNGHeader(screenshot), let blank = PNGHeader(blankScreenshot) else { return ["a screenshot is not a PNG"] }
        guard page.width == blank.width, page.height == blank.height else {
            return ["the screenshots differ in size: \(page.width)x\(page.height) vs \(blank.width)x\(blank.height)"]
        }
        // Measured: the blank page is about 11 kB, a rendered report several times that.
        guard screenshot.count > blankScreenshot.count * 3 / 2 else {
            return ["the screenshot (\(screenshot.count) bytes) is no bigger than a blank page's (\(blankScreenshot.count))"]
        }
        return []
    }
}

/// The width and height of a PNG, read from its signature and IHDR chunk.
struct PNGHeader {
    var width: UInt32
    var height: UInt32

    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 24, bytes[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
              bytes[12..<16].elementsEqual(Array("IHDR".utf8)) else { return nil }
        func be32(_ at: Int) -> UInt32 { bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        width = be32(16)
        height = be32(20)
    }
}
