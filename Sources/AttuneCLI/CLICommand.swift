/// One `attune` subcommand. Each lives in its own file and is listed in `Commands.all`.
protocol CLICommand: SendableMetatype {
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
    /// Options that may be given more than once (a subset of ``options``).
    static var repeatableOptions: Set<String> { get }
    /// Runs the command and returns the exit status.
    static func run(_ arguments: Arguments) async throws -> Int32
}

extension CLICommand {
    static var flags: Set<String> { [] }
    static var options: Set<String> { [] }
    static var repeatableOptions: Set<String> { [] }

    /// The synopsis of ``usage`` (its first paragraph) and where the rest is: what a usage
    /// error prints under its message, short enough to see the message above it.
    static var usageLine: String {
        let synopsis = usage.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.isEmpty }
        return (synopsis + ["run 'attune \(name) --help' for the options"]).joined(separator: "\n")
    }
}
