import Foundation

func printHelp() {
    var lines = ["usage: attune COMMAND [ARGS...]", "", "Attune: a Bluetooth LE host stack for Linux (ATT/GATT over L2CAP and HCI).", "", "commands:"]
    let width = Commands.all.map { $0.name.count }.max() ?? 0
    for c in Commands.all {
        lines.append("  " + c.name + String(repeating: " ", count: width - c.name.count + 2) + c.summary)
    }
    lines.append("")
    lines.append("Run 'attune COMMAND --help' for a command's options.")
    Output.data(lines.joined(separator: "\n"))
}

let argv = Array(CommandLine.arguments.dropFirst())
guard let first = argv.first, first != "--help", first != "-h", first != "help" else {
    printHelp()
    exit(argv.isEmpty ? 2 : 0)
}
guard let command = Commands.all.first(where: { $0.name == first }) else {
    Output.error("unknown command '\(first)'; run 'attune --help' for the list")
    exit(2)
}
let rest = Array(argv.dropFirst())
if rest.contains("--help") || rest.contains("-h") {
    Output.data(command.usage)
    exit(0)
}
do {
    let arguments = try Arguments(rest, flags: command.flags, options: command.options)
    exit(try await command.run(arguments))
} catch let error as CLIError {
    Output.error(error.description)
    if case .usage = error { Output.status(command.usage) }
    exit(error.isUsage ? 2 : 1)
} catch {
    Output.error("\(error)")
    exit(1)
}
