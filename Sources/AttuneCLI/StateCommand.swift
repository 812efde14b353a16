import ATTPresentation
import Attune
import Transport

/// `attune state`: the adapters and the manager state of a transport, with what to do
/// when it is not powered on.
enum StateCommand: CLICommand {
    static let name = "state"
    static let summary = "print the adapter and manager state (unsupported, unauthorized, poweredOff, poweredOn)"
    static let usage = """
        usage: attune state [--transport T] [--json]

        Prints the kernel's Bluetooth adapters (for kernel transports) and the manager
        state a CentralManager opened on the transport reports, with the cause and its fix
        when it is not poweredOn. The exit status is 0 only when the state is poweredOn.

        \(TransportOption.help)
          --json         {"transport", "state", "cause", "adapters": [{"name", "address", "up", "le"}]}
        """
    static let flags: Set<String> = ["json"]
    static let options: Set<String> = ["transport"]

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.isEmpty else { throw CLIError.usage("state takes no arguments") }
        let parsed = try TransportOption.parse(arguments.option("transport"))
        var demo: DemoSession?
        let transport: BluetoothTransport
        if let parsed {
            transport = parsed
        } else {
            demo = try await DemoSession.start()
            transport = .memory(demo!.radio)
        }
        var state: String
        var cause: String?
        var adapters: [KernelAdapter] = []
        switch transport {
        case .kernel(let name), .userChannel(let name):
            // Kernel facts first: without AF_BLUETOOTH nothing else can be asked.
            let kernel = KernelFacts(adapter: name)
            adapters = kernel.adapters
            state = kernel.state.rawValue
            cause = kernel.cause?.description
        default:
            state = ManagerState.poweredOn.rawValue
        }
        if cause == nil {
            let central = CentralManager(transport: transport)
            let status = await ManagerReadiness.settled({ central.status })
            state = status.state.rawValue
            cause = status.cause?.description
        }
        try await demo?.stop()
        if arguments.flag("json") {
            Output.data(JSONValue.object([
                ("transport", .string(transport.description)), ("state", .string(state)),
                ("cause", cause.map(JSONValue.string) ?? .null),
                ("adapters", .array(adapters.map { a in
                    .object([("name", .string(a.name)), ("address", .string(a.address.description)),
                             ("up", .bool(a.isUp)), ("le", .bool(a.supportsLowEnergy))])
                })),
            ]).description)
        } else {
            for a in adapters { Output.data("adapter \(a)") }
            Output.data("\(transport.description): \(state)")
        }
        if let cause {
            Output.error(cause)
            return 1
        }
        return 0
    }
}
