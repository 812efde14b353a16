import ATTPresentation
import Attune

/// `attune read ADDR HANDLE|UUID`: one characteristic or descriptor value.
enum ReadCommand: CLICommand {
    static let name = "read"
    static let summary = "read a characteristic or descriptor value"
    static let usage = """
        usage: attune read ADDR HANDLE|UUID [--long] [--random] [--discovery-timeout SECONDS] [--passkey N|--no-pair]
                         [--transport T] [--json]

        Connects, finds the attribute (HANDLE as 0xNNNN: a characteristic value or a
        descriptor; otherwise a characteristic UUID such as 2a37) and prints its value in
        hex. A full Read Response is continued with Read Blob, as Core Bluetooth does.

          --long         use the Read Long Characteristic Value procedure explicitly
          --random       ADDR is a random address
        \(DiscoveryDeadline.help)
        \(PairingOptions.help)
        \(TransportOption.help)
          --json         {"handle", "uuid", "length", "value": "hex"}
        """
    static let flags: Set<String> = PairingOptions.centralFlags.union(["long", "random", "json", "snoop-keys"])
    static let options: Set<String> = PairingOptions.centralOptions.union(["transport", "snoop", "discovery-timeout"])

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.count == 2 else { throw CLIError.usage("give ADDR and HANDLE|UUID") }
        let target = try AttributeTarget.parse(arguments.positionals[1])
        var deadline = try DiscoveryDeadline(arguments)
        let context = try await CentralContext.open(arguments, pairs: true)
        deadline.start()
        let peripheral = try await context.connect(arguments.positionals[0], random: arguments.flag("random"),
                                                   discoveryTimeout: deadline.timeout)
        var handle = AttributeHandle(0), uuid = BluetoothUUID(0)
        let value: [UInt8]
        do {
            switch try target.resolve(in: try await deadline.tree(of: peripheral, on: context.central)) {
            case .characteristic(let c):
                (handle, uuid) = (c.valueHandle, c.uuid)
                value = arguments.flag("long") ? try await peripheral.readLongValue(for: c)
                                               : try await peripheral.readValue(for: c)
            case .descriptor(let d, _):
                (handle, uuid) = (d.handle, d.uuid)
                value = try await peripheral.readValue(for: d)
            }
        } catch let error as CLIError {
            try? await context.close(peripheral)
            throw error
        } catch {
            try? await context.close(peripheral)
            throw CLIError.failure("read of \(target) failed: \(error)")
        }
        if arguments.flag("json") {
            Output.data(JSONValue.object([("handle", .int(Int(handle.rawValue))), ("uuid", .string(uuid.description)),
                                          ("length", .int(value.count)), ("value", .hex(value))]).description)
        } else {
            Output.data(hexString(value))
        }
        Output.status("\(byteCount(value.count)) from \(handle) (\(GATTTreeOutput.label(uuid)))")
        try await context.close(peripheral)
        return 0
    }
}
