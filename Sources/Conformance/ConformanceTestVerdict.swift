/// The verdict of one conformance test against the IUT.
public enum ConformanceTestVerdict: Hashable, Sendable {
    /// The IUT did what the spec requires; the note says which of two allowed outcomes it chose.
    case pass(note: String?)
    /// The IUT broke the rule the reason names.
    case fail(String)
    /// The test could not reach a verdict (no answer to an operator step, a link lost).
    case inconclusive(String)
    /// The IUT's database lacks what the test needs, or the IUT declines the feature.
    case notApplicable(String)

    /// The verdict's name in reports: pass, fail, inconclusive, not_applicable.
    public var name: String {
        switch self {
        case .pass: "pass"
        case .fail: "fail"
        case .inconclusive: "inconclusive"
        case .notApplicable: "not_applicable"
        }
    }

    /// Why; empty for a pass without a note.
    public var reason: String {
        switch self {
        case .pass(let note): note ?? ""
        case .fail(let r), .inconclusive(let r), .notApplicable(let r): r
        }
    }

    /// True for ``fail(_:)``.
    public var isFailure: Bool { if case .fail = self { true } else { false } }

    /// The verdict with `note` added to its reason (nothing when `note` is empty).
    func noting(_ note: String) -> ConformanceTestVerdict {
        guard !note.isEmpty else { return self }
        switch self {
        case .pass(let n): return .pass(note: (n ?? "").isEmpty ? String(note.dropFirst()) : n! + note)
        case .fail(let r): return .fail(r + note)
        case .inconclusive(let r): return .inconclusive(r + note)
        case .notApplicable(let r): return .notApplicable(r + note)
        }
    }
}
