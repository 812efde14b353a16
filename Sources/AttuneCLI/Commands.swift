/// Every subcommand, in the order `attune --help` lists them, each once.
enum Commands {
    static var all: [any CLICommand.Type] { [
        DemoCommand.self,
        StateCommand.self,
        ScanCommand.self,
        DiscoverCommand.self,
        ReadCommand.self,
        WriteCommand.self,
        SubscribeCommand.self,
        PairCommand.self,
        ServeCommand.self,
        GatewayCommand.self,
        BondsCommand.self,
        UnpairCommand.self,
        PDUCommand.self,
        DecodeCommand.self,
        ReplayCommand.self,
        ConformanceCommand.self,
    ] }

    static let usageLine = "usage: attune [GLOBAL OPTIONS] COMMAND [ARGS...]; run 'attune --help' for the commands"

    /// `attune --help`.
    static var help: String {
        var lines = ["usage: attune [GLOBAL OPTIONS] COMMAND [ARGS...]", "",
                     "Attune: a Bluetooth LE host stack for Linux (ATT/GATT over L2CAP and HCI).", "", "commands:"]
        let width = all.map { $0.name.count }.max() ?? 0
        for c in all {
            lines.append("  " + c.name + String(repeating: " ", count: width - c.name.count + 2) + c.summary)
        }
        lines.append("")
        lines.append(GlobalOptions.help)
        lines.append("")
        lines.append("Exit status: 0 done, 1 failed (the message names the cause), 2 usage error.")
        lines.append("Run 'attune COMMAND --help' for a command's options.")
        return lines.joined(separator: "\n")
    }
}
