/// Parsed command-line arguments: positionals, flags and options with values.
struct Arguments {
    var positionals: [String] = []
    var flags: Set<String> = []
    var options: [String: String] = [:]

    /// Parses `argv` (without the command name) against the flags and options a
    /// command declares; anything else is a usage error, never silently ignored.
    init(_ argv: [String], flags knownFlags: Set<String>, options knownOptions: Set<String>) throws(CLIError) {
        var i = 0
        var onlyPositionals = false
        while i < argv.count {
            let arg = argv[i]
            i += 1
            if onlyPositionals || !arg.hasPrefix("--") || arg == "-" {
                positionals.append(arg)
                continue
            }
            if arg == "--" {
                onlyPositionals = true
                continue
            }
            var name = String(arg.dropFirst(2))
            var inlineValue: String?
            if let eq = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if knownFlags.contains(name), inlineValue == nil {
                flags.insert(name)
            } else if knownOptions.contains(name) {
                if let v = inlineValue {
                    options[name] = v
                } else if i < argv.count {
                    options[name] = argv[i]
                    i += 1
                } else {
                    throw .usage("option --\(name) needs a value")
                }
            } else {
                throw .usage("unknown option --\(name)")
            }
        }
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }
    func option(_ name: String) -> String? { options[name] }
}

extension Arguments {
    /// An integer option within `range`, or `fallback` when absent.
    func integer(_ name: String, default fallback: Int, in range: ClosedRange<Int>) throws(CLIError) -> Int {
        guard let text = option(name) else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw .usage("--\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return value
    }
}
