/// The options that mean the same for every command that takes them, and so may also come
/// before the command name: `attune --transport tcp:127.0.0.1:9000 scan` is
/// `attune scan --transport tcp:127.0.0.1:9000`.
///
/// They are the ones most commands share. Options only one command has (`--controller`,
/// `--seconds`, `--random`, ...) stay after its name, where its usage documents them.
enum GlobalOptions {
    /// Global options that take a value.
    static let options: Set<String> = ["transport", "snoop"]
    /// Global flags.
    static let flags: Set<String> = ["json", "snoop-keys"]

    static let help = """
        global options (before or after COMMAND, for the commands that take them):
          --transport T  hci0, tcp:HOST:PORT, unix:PATH, serial:PATH, user:hci0 or memory
          --snoop FILE   record the session as btsnoop
          --snoop-keys   keep link keys in the --snoop capture (by default they are zeros)
          --json         machine-readable output (values are always hex, "" when empty)
        """
}

/// What the command line asks for: help, or one command with its arguments.
enum Invocation {
    /// `attune`, `attune --help`: the list of commands (`status` is the exit status).
    case help(status: Int32)
    /// `attune COMMAND --help`.
    case commandHelp(any CLICommand.Type)
    /// `attune [GLOBAL OPTIONS] COMMAND [ARGS...]`, with the global options given before
    /// the command moved in front of the command's own arguments.
    case run(any CLICommand.Type, [String])

    /// Splits `argv` (without the program name). Global options before the command must be
    /// ones the command takes, so `attune --transport memory decode F` is a usage error
    /// rather than an option silently ignored.
    static func parse(_ argv: [String]) throws(InvocationError) -> Invocation {
        var leading: [String] = []
        var i = 0
        while i < argv.count, argv[i].hasPrefix("--"), argv[i] != "--" {
            let arg = argv[i]
            i += 1
            if arg == "--help" { return .help(status: 0) }
            let name = String(arg.dropFirst(2).prefix { $0 != "=" })
            if GlobalOptions.flags.contains(name), !arg.contains("=") {
                leading.append(arg)
            } else if GlobalOptions.options.contains(name) {
                leading.append(arg)
                if !arg.contains("=") {
                    guard i < argv.count else { throw .usage("option --\(name) needs a value", usageLine: Commands.usageLine) }
                    leading.append(argv[i])
                    i += 1
                }
            } else {
                throw .usage("unknown global option --\(name) (global options: "
                             + (GlobalOptions.options.union(GlobalOptions.flags)).sorted().map { "--" + $0 }.joined(separator: ", ")
                             + "; a command's own options go after its name)", usageLine: Commands.usageLine)
            }
        }
        guard i < argv.count else {
            if leading.isEmpty { return .help(status: 2) }
            throw .usage("give a COMMAND after the global options", usageLine: Commands.usageLine)
        }
        let name = argv[i]
        if name == "-h" || name == "help" { return .help(status: 0) }
        guard let command = Commands.all.first(where: { $0.name == name }) else {
            throw .usage("unknown command '\(name)'; run 'attune --help' for the list", usageLine: Commands.usageLine)
        }
        let rest = Array(argv[(i + 1)...])
        if rest.contains("--help") || rest.contains("-h") { return .commandHelp(command) }
        for arg in leading where arg.hasPrefix("--") {
            let option = String(arg.dropFirst(2).prefix { $0 != "=" })
            guard command.options.contains(option) || command.flags.contains(option) else {
                throw .usage("--\(option) does not apply to '\(command.name)'", usageLine: command.usageLine)
            }
        }
        return .run(command, leading + rest)
    }
}

/// A command line that names no runnable command: the message, and the usage line of the
/// command it was for (or of `attune` itself).
enum InvocationError: Error {
    case usage(String, usageLine: String)
}
