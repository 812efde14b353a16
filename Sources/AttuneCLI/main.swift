import Foundation

let invocation: Invocation
do {
    invocation = try Invocation.parse(Array(CommandLine.arguments.dropFirst()))
} catch .usage(let message, let usageLine) {
    Output.error(message)
    Output.status(usageLine)
    exit(2)
}
let command: any CLICommand.Type
let argv: [String]
switch invocation {
case .help(let status):
    Output.data(Commands.help)
    exit(status)
case .commandHelp(let c):
    Output.data(c.usage)
    exit(0)
case .run(let c, let a):
    (command, argv) = (c, a)
}
do {
    let arguments = try Arguments(argv, flags: command.flags, options: command.options)
    exit(try await command.run(arguments))
} catch let error as CLIError {
    Output.error(error.description)
    if case .usage = error { Output.status(command.usageLine) }
    exit(error.isUsage ? 2 : 1)
} catch {
    Output.error("\(error)")
    exit(1)
}
