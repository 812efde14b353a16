/// Parsed command-line arguments: positionals, flags and options with values.
struct Arguments {
    var positionals: [String] = []
    var flags: Set<String> = []
    var options: [String: String] = [:]
    /// Every value of an option a command lets repeat (`--only A --only B`), in order.
    var repeated: [String: [String]] = [:]

    /// Parses `argv` (without the command name) against the flags and options a
    /// command declares; anything else is a usage error, never silently ignored.
    /// `repeatable` names the options that may be given more than once.
    init(_ argv: [String], flags knownFlags: Set<String>, options knownOptions: Set<String>,
         repeatable: Set<String> = []) throws(CLIError) {
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
                let value: String
                if let v = inlineValue {
                    value = v
                } else if i < argv.count {
                    value = argv[i]
                    i += 1
                } else {
                    throw .usage("option --\(name) needs a value")
                }
                if repeatable.contains(name) {
                    repeated[name, default: []].append(value)
                    if options[name] == nil { options[name] = value }
                    continue
                }
                // Given twice (before and after the command, say): which one was meant is
                // a guess, so it is not made.
                if let earlier = options[name], earlier != value {
                    throw .usage("--\(name) given twice, as '\(earlier)' and '\(value)'")
                }
                options[name] = value
            } else {
                throw .usage("unknown option --\(name)")
            }
        }
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }
    func option(_ name: String) -> String? { options[name] }
    /// Every value of a repeatable option, in the order given.
    func values(_ name: String) -> [String] { repeated[name] ?? options[name].map { [$0] } ?? [] }
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

    /// A duration option in seconds, decimals allowed ("0.5"), within `range`, or
    /// `fallback` when absent. NaN, infinities and values past the range are usage errors
    /// here, before anything converts them to a whole number of milliseconds.
    func seconds(_ name: String, default fallback: Double, in range: ClosedRange<Double>) throws(CLIError) -> Duration {
        let value: Double
        if let text = option(name) {
            guard let parsed = Double(text), parsed.isFinite, range.contains(parsed) else {
                throw .usage("--\(name) takes a number of seconds from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound)), not '\(text)'")
            }
            value = parsed
        } else {
            value = fallback
        }
        // Whole milliseconds: within the range checked above this cannot overflow.
        return .milliseconds(Int((value * 1000).rounded()))
    }

    private static func format(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : String(x)
    }
}
