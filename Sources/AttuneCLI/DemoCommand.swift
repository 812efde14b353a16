import Attune
import Foundation

/// `attune demo`: our central against the built-in demo peripheral over the in-memory
/// transport, every step checked.
enum DemoCommand: CLICommand {
    static let name = "demo"
    static let summary = "run the central against a built-in heart-rate peripheral in memory (no radio needed)"
    static let usage = """
        usage: attune demo [--seconds N] [--mtu N] [--json] [--snoop FILE]

        Starts a built-in peripheral (Battery, Heart Rate, Device Information and a custom
        128-bit service) on an in-process radio and drives it with Attune's central: scan,
        connect with an MTU exchange, discovery of the whole database printed as a tree,
        a long read (300 bytes), a long write (512 bytes, read back), then notifications
        and indications printed as they arrive for N seconds, then a clean disconnect.
        Every PDU runs through the real ATT bearer and GATT client and server engines.

        Data goes to stdout, progress to stderr. The exit status is 1 when any check fails
        (a value read differs, a write does not read back, no notification or indication
        arrived, a procedure failed).

          --seconds N   how long to listen to notifications and indications (default 3, 1…3600)
          --mtu N       the ATT_MTU the central asks for (default 185, 23…517; the demo
                        server offers 512); below 302 the 300-byte read needs Read Blob
          --json        one JSON object per line (JSON Lines) instead of text, each with
                        "event": found, connected, services, read, write, subscribed,
                        notification, indication, disconnected, result (see Docs/cli.md)
          --snoop FILE  record the session as btsnoop (datalink 1002, H4, with synthesized
                        HCI connection events and ACL framing); open it with
                        `attune decode FILE`, tshark or btmon
        """
    static let flags: Set<String> = ["json"]
    static let options: Set<String> = ["seconds", "mtu", "snoop"]

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.isEmpty else { throw CLIError.usage("demo takes no arguments") }
        let seconds = try arguments.integer("seconds", default: 3, in: 1...3600)
        let mtu = try arguments.integer("mtu", default: 185, in: 23...517)
        var run = DemoRun(json: arguments.flag("json"), seconds: seconds, mtu: mtu)
        let session = try await DemoSession.start(snoopPath: arguments.option("snoop"))
        Output.status("demo peripheral \"\(DemoPeripheral.localName)\" advertising on the in-memory radio")
        let central = CentralManager(transport: .memory(session.radio))
        var peripheral: Peripheral?
        do {
            peripheral = try await run.connect(central)
            try await run.exercise(peripheral!)
        } catch let error as CLIError {
            run.fail(error.description)
        } catch {
            run.fail("\(error)")
        }
        if let peripheral {
            Output.status("disconnecting")
            await central.cancelConnection(peripheral)
            run.emit("disconnected", text: "disconnected", [("state", .string(await peripheral.state.description))])
        }
        try await session.stop()
        if let path = arguments.option("snoop") { Output.status("capture written to \(path)") }
        run.finish()
        return run.failures.isEmpty ? 0 : 1
    }
}
