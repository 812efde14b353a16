import ATTPresentation
import Attune

/// `attune discover ADDR`: the peripheral's GATT tree.
enum DiscoverCommand: CLICommand {
    static let name = "discover"
    static let summary = "connect to a peripheral and print its GATT tree"
    static let usage = """
        usage: attune discover ADDR [--random] [--discovery-timeout SECONDS] [--transport T] [--json]

        Connects (MTU exchange, full discovery) and prints every service, primary and
        secondary (reached through include declarations), with its includes,
        characteristics (with properties and handles) and descriptors:
          service 0x0010..0x0015  180D Heart Rate
            includes 0x0011  180A Device Information  service 0x0020..0x0022
            characteristic 0x0013  2A37 Heart Rate Measurement  [notify]  declaration 0x0012
              descriptor 0x0014  2902 Client Characteristic Configuration
          service 0x0020..0x0022  180A Device Information (secondary)

          --random       ADDR is a random address (default: public)
        \(DiscoveryDeadline.help)
        \(TransportOption.help)
          --json         one document: {"address", "mtu", "services": [{"uuid", "name", "primary",
                         "start", "end", "includes": [{"declaration", "uuid", "name", "start",
                         "end"}], "characteristics": [{"uuid", "name", "properties",
                         "declaration", "value", "descriptors": [{"uuid", "name", "handle"}]}]}]}
        """
    static let flags: Set<String> = ["random", "json", "snoop-keys"]
    static let options: Set<String> = ["transport", "snoop", "discovery-timeout"]

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.count == 1 else { throw CLIError.usage("give exactly one ADDR") }
        var deadline = try DiscoveryDeadline(arguments)
        let context = try await CentralContext.open(arguments)
        deadline.start()
        let peripheral = try await context.connect(arguments.positionals[0], random: arguments.flag("random"),
                                                   discoveryTimeout: deadline.timeout)
        let tree: [Service]
        do {
            tree = try await deadline.tree(of: peripheral, on: context.central)
        } catch {
            try? await context.close(peripheral)
            throw error
        }
        if arguments.flag("json") {
            Output.data(JSONValue.object([("address", .string(peripheral.address.description)),
                                          ("mtu", .int(await peripheral.mtu)),
                                          ("services", GATTTreeOutput.json(tree))]).description)
        } else {
            for line in GATTTreeOutput.lines(tree) { Output.data(line) }
        }
        // Every PDU counts, the notifications nobody subscribed to as well (they are dropped):
        // a peer that floods while we discover shows here.
        Output.status("discovered \(tree.count) services (\(peripheral.statistics.pdusReceived) ATT PDUs received)")
        try await context.close(peripheral)
        return 0
    }
}
