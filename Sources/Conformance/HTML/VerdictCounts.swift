/// How many tests ended with each verdict, in all and per test group: the summary
/// table of the HTML report, and what its tests compare a rendered page against.
public struct VerdictCounts: Hashable, Sendable {
    /// The verdict names in the order reports show them.
    public static let verdictNames = ["pass", "fail", "inconclusive", "not_applicable"]

    /// Verdict name to count, over every report.
    public private(set) var total: [String: Int] = [:]
    /// Group (GAC, GAD, ...) to verdict name to count.
    public private(set) var byGroup: [String: [String: Int]] = [:]
    /// The groups in the order their first report came.
    public private(set) var groups: [String] = []

    /// Counts `reports`; a report's group is the third part of its id
    /// (`GATT/SR/GAR/BV-01-C` is GAR), or `other` for an id without one.
    public init(_ reports: [ConformanceTestReport]) {
        for report in reports {
            let parts = report.id.split(separator: "/")
            let group = parts.count > 2 ? String(parts[2]) : "other"
            if byGroup[group] == nil { groups.append(group) }
            byGroup[group, default: [:]][report.verdict.name, default: 0] += 1
            total[report.verdict.name, default: 0] += 1
        }
    }

    /// The count of `verdict` (a name from ``verdictNames``), in `group` or in all.
    public func count(_ verdict: String, group: String? = nil) -> Int {
        if let group { return byGroup[group]?[verdict] ?? 0 }
        return total[verdict] ?? 0
    }
}
