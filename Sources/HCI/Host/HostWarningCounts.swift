/// How many warnings of each kind the host has raised since it was created, delivered
/// or suppressed alike: the statistics of hostile or broken input, which rate bounding
/// must not hide.
public struct HostWarningCounts: Hashable, Sendable {
    private var counts = [Int](repeating: 0, count: HostWarning.Kind.allCases.count)

    public init() {}

    /// Warnings of `kind` so far.
    public subscript(kind: HostWarning.Kind) -> Int {
        get { counts[kind.rawValue] }
        set { counts[kind.rawValue] = newValue }
    }

    /// Warnings of every kind so far.
    public var total: Int { counts.reduce(0, +) }
}
