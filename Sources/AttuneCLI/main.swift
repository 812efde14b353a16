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
let arguments: Arguments
do {
    arguments = try Arguments(argv, flags: command.flags, options: command.options, repeatable: command.repeatableOptions)
} catch {
    Output.error(error.description)
    Output.status(command.usageLine)
    exit(2)
}
// The command runs in a task of its own, so that a signal can stop it cleanly: links
// disconnected, advertising and scanning stopped, captures complete; then 130 or 143.
let work = Task { try await command.run(arguments) }
let signals = SignalTrap { number in
    Task {
        // A controller that stops answering must not keep the process: SignalTrap
        // ends it 5 s after the signal whatever happens here.
        await Shutdown.run()
        work.cancel()
    }
}
let outcome = await work.result
// Whichever way the command ended, its links end with a Disconnect the peer sees (a
// signal's stop may still be under way: this waits for it).
await Shutdown.run()
ControllerWarningReport.print()
if let number = signals.caught { exit(128 + number) }
do {
    exit(try outcome.get())
} catch let error as CLIError {
    Output.error(error.description)
    if case .usage = error { Output.status(command.usageLine) }
    exit(error.isUsage ? 2 : 1)
} catch {
    Output.error("\(error)")
    exit(1)
}
