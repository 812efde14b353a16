/// An error the CLI reports as one line on stderr, with a non-zero exit status.
enum CLIError: Error, CustomStringConvertible {
    /// The command line itself is wrong; the command's usage is printed too.
    case usage(String)
    /// The command could not do its job; the message names the cause and the fix.
    case failure(String)

    var description: String {
        switch self {
        case .usage(let m), .failure(let m): m
        }
    }
}

extension CLIError {
    var isUsage: Bool {
        if case .usage = self { return true }
        return false
    }
}
