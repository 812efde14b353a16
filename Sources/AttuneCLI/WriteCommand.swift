import ATTPresentation
import Attune

/// `attune write ADDR HANDLE|UUID HEX`: one write, with the procedure chosen.
enum WriteCommand: CLICommand {
    static let name = "write"
    static let summary = "write a characteristic or descriptor value"
    static let usage = """
        usage: attune write ADDR HANDLE|UUID HEX [--without-response|--long|--reliable] [--random]
                          [--discovery-timeout SECONDS] [--passkey N|--no-pair] [--transport T] [--json]

        Connects, finds the attribute (HANDLE as 0xNNNN, or a characteristic UUID) and
        writes HEX ("0102ff", "01 02 ff" or "01:02:ff"). By default a Write Request, or
        the long-write procedure when the value is longer than ATT_MTU − 3.

          --without-response  Write Command (no confirmation; waits for room on the link)
          --long              Prepare Write + Execute Write, whatever the length
          --reliable          Reliable Writes: every prepared part's echo is verified
          --random            ADDR is a random address
        \(DiscoveryDeadline.help)
        \(PairingOptions.help)
        \(TransportOption.help)
          --json              {"handle", "uuid", "length", "procedure"}
        """
    static let flags: Set<String> = PairingOptions.centralFlags.union(["without-response", "long", "reliable", "random", "json", "snoop-keys"])
    static let options: Set<String> = PairingOptions.centralOptions.union(["transport", "snoop", "discovery-timeout"])

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.count == 3 else { throw CLIError.usage("give ADDR, HANDLE|UUID and HEX") }
        let modes = ["without-response", "long", "reliable"].filter(arguments.flag)
        guard modes.count <= 1 else { throw CLIError.usage("choose one of --without-response, --long and --reliable") }
        let target = try AttributeTarget.parse(arguments.positionals[1])
        let value = try Hex.parse(arguments.positionals[2])
        var deadline = try DiscoveryDeadline(arguments)
        let context = try await CentralContext.open(arguments, pairs: true)
        deadline.start()
        let peripheral = try await context.connect(arguments.positionals[0], random: arguments.flag("random"),
                                                   discoveryTimeout: deadline.timeout)
        let procedure = modes.first ?? "request"
        var handle = AttributeHandle(0), uuid = BluetoothUUID(0)
        do {
            switch try target.resolve(in: try await deadline.tree(of: peripheral, on: context.central)) {
            case .characteristic(let c):
                (handle, uuid) = (c.valueHandle, c.uuid)
                switch procedure {
                case "without-response": try await peripheral.writeValue(value, for: c, type: .withoutResponse)
                case "long": try await peripheral.writeLongValue(value, for: c)
                case "reliable": try await peripheral.reliableWrite(value, for: c)
                default: try await peripheral.writeValue(value, for: c, type: .withResponse)
                }
            case .descriptor(let d, _):
                (handle, uuid) = (d.handle, d.uuid)
                guard procedure == "request" else {
                    throw CLIError.usage("descriptors take plain writes only: drop --\(procedure)")
                }
                try await peripheral.writeValue(value, for: d)
            }
        } catch let error as CLIError {
            try? await context.close(peripheral)
            throw error
        } catch {
            try? await context.close(peripheral)
            throw CLIError.failure("write to \(target) failed: \(error)")
        }
        if arguments.flag("json") {
            Output.data(JSONValue.object([("handle", .int(Int(handle.rawValue))), ("uuid", .string(uuid.description)),
                                          ("length", .int(value.count)), ("procedure", .string(procedure))]).description)
        } else {
            Output.data("wrote \(byteCount(value.count)) to \(handle) (\(GATTTreeOutput.label(uuid)))")
        }
        try await context.close(peripheral)
        return 0
    }
}
