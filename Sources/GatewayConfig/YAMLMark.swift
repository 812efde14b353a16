/// A position in a YAML file, 1-based as editors count it.
public struct YAMLMark: Hashable, Sendable, CustomStringConvertible {
    /// The line, from 1.
    public let line: Int
    /// The column, from 1, counted in Unicode scalars as libyaml counts them.
    public let column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line:column`
    public var description: String { "\(line):\(column)" }
}
