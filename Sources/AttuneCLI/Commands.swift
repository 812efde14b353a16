/// Every subcommand, in the order `attune --help` lists them.
enum Commands {
    static var all: [any CLICommand.Type] { [
        DemoCommand.self,
        StateCommand.self,
        ScanCommand.self,
        DiscoverCommand.self,
        ReadCommand.self,
        WriteCommand.self,
        SubscribeCommand.self,
        ServeCommand.self,
        PDUCommand.self,
        DecodeCommand.self,
        ReplayCommand.self,
        ScanCommand.self,
        ConformanceCommand.self,
    ] }
}
