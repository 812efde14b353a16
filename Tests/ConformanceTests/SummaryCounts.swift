import Foundation
/// The counts in an HTML report's summary table, read back by the ids of its cells
/// (`count-fail`, `count-GAR-pass`, `count-total`): from the page as written, or from
/// the DOM Chromium rendered. A key without its cell is absent.
struct SummaryCounts {
    private var counts: [String: Int] = [:]

    init(html: String) {
        var rest = Substring(html)
        while let start = rest.range(of: "id=\"count-") {
            rest = rest[start.upperBound...]
            guard let close = rest.range(of: "\">") else { break }
            let key = String(rest[..<close.lowerBound])
            let digits = rest[close.upperBound...].prefix { $0.isNumber }
            if let n = Int(digits) { counts[key] = n }
            rest = rest[close.upperBound...]
        }
    }

    subscript(key: String) -> Int? { counts[key] }
}
