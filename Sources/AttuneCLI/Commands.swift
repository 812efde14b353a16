/// Every subcommand, in the order `attune --help` lists them.
enum Commands {
    static var all: [any CLICommand.Type] { [
        PDUCommand.self,
        DecodeCommand.self,
        ScanCommand.self,
        ConformanceCommand.self,
    ] }
}
