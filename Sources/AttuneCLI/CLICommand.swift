/// One `attune` subcommand. Each lives in its own file and is listed in `main.swift`.
protocol CLICommand {
    /// The word after `attune`.
    static var name: String { get }
    /// One line for `attune --help`.
    static var summary: String { get }
    /// The full help text for `attune NAME --help`.
    static var usage: String { get }
    /// Flags that take no value (without the leading dashes).
    static var flags: Set<String> { get }
    /// Options that take a value (without the leading dashes).
    static var options: Set<String> { get }
    /// Runs the command and returns the exit status.
    static func run(_ arguments: Arguments) async throws -> Int32
}

extension CLICommand {
    static var flags: Set<String> { [] }
    static var options: Set<String> { [] }
}
