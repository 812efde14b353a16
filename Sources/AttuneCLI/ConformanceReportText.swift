import ATTPresentation
import Conformance

/// How `attune conformance --against` prints its reports: a text line or a JSON object
/// per test, the closing counts, and the JUnit file.
enum ConformanceReportText {
    /// `VERDICT  ID  reason`.
    static func line(_ r: ConformanceTestReport) -> String {
        let reason = r.verdict.reason
        return reason.isEmpty ? "\(r.verdict.name.uppercased())  \(r.id)" : "\(r.verdict.name.uppercased())  \(r.id)  \(reason)"
    }

    /// `{"id", "verdict", "reason", "exchange": [{"dir", "pdu"}...]}` on one line.
    static func json(_ r: ConformanceTestReport) -> String {
        JSONValue.object([
            ("id", .string(r.id)),
            ("verdict", .string(r.verdict.name)),
            ("reason", .string(r.verdict.reason)),
            ("exchange", .array(r.exchange.map { .object([("dir", .string($0.direction.rawValue)), ("pdu", .string($0.hex))]) })),
        ]).description
    }

    /// `N passed, M failed, K inconclusive, J not applicable`.
    static func summary(_ reports: [ConformanceTestReport]) -> String {
        func count(_ name: String) -> Int { reports.filter { $0.verdict.name == name }.count }
        return "\(count("pass")) passed, \(count("fail")) failed, \(count("inconclusive")) inconclusive, "
            + "\(count("not_applicable")) not applicable"
    }

    /// A JUnit XML document: one testcase per test, named by its id; a fail carries
    /// `<failure>` with the reason and the exchange, the verdicts that are neither pass
    /// nor fail `<skipped>` with their reason.
    static func junit(_ reports: [ConformanceTestReport], against target: String) -> String {
        let failures = reports.filter(\.verdict.isFailure).count
        let skipped = reports.filter { $0.verdict.name == "inconclusive" || $0.verdict.name == "not_applicable" }.count
        var xml = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                   "<testsuite name=\"attune conformance --against \(escape(target))\" tests=\"\(reports.count)\" "
                   + "failures=\"\(failures)\" errors=\"0\" skipped=\"\(skipped)\">"]
        for r in reports {
            let open = "  <testcase classname=\"GATT.server\" name=\"\(escape(r.id))\""
            let exchange = r.exchange.map { "\($0.direction.rawValue) \($0.hex)" }.joined(separator: "\n")
            switch r.verdict {
            case .pass:
                xml.append(open + "/>")
            case .fail(let reason):
                xml.append(open + ">")
                xml.append("    <failure message=\"\(escape(reason))\">\(escape(exchange))</failure>")
                xml.append("  </testcase>")
            case .inconclusive(let reason), .notApplicable(let reason):
                xml.append(open + ">")
                xml.append("    <skipped message=\"\(escape(r.verdict.name + ": " + reason))\"/>")
                xml.append("  </testcase>")
            }
        }
        xml.append("</testsuite>")
        return xml.joined(separator: "\n") + "\n"
    }

    static func escape(_ text: String) -> String { MarkupEscaping.escape(text) }
}
