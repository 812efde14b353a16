import ATTPresentation
import Attune

/// `attune pair ADDR`: connects and pairs now, whatever the attributes need.
enum PairCommand: CLICommand {
    static let name = "pair"
    static let summary = "pair with a peripheral (Just Works, Passkey Entry, Numeric Comparison)"
    static let usage = """
        usage: attune pair ADDR [--io none|display|keyboard|keyboard-display] [--passkey N] [--secure-only]
                         [--random] [--transport T] [--json]

        Connects and pairs with the peripheral at once, then prints how the link is
        secured: authenticated (MITM-protected) or not, LE Secure Connections or legacy,
        the key size, and how long pairing took. The association model follows from both
        sides' IO capabilities; a passkey or number to compare is asked on the terminal
        unless --passkey gives it.

        \(PairingOptions.ioHelp)
          --passkey N    the 6-digit passkey: typed when the peer displays, shown when we
                         display; never prompts; MITM protection required
          --secure-only  refuse LE legacy pairing (Authentication Requirements)
          --random       ADDR is a random address
        \(TransportOption.help)
          --json         {"address", "authenticated", "secureConnections", "keySize", "milliseconds"}
        """
    static let flags: Set<String> = ["secure-only", "random", "json"]
    static let options: Set<String> = ["io", "passkey", "transport", "snoop"]

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.count == 1 else { throw CLIError.usage("give ADDR") }
        let context = try await CentralContext.open(arguments, pairs: true)
        let peripheral = try await context.connect(arguments.positionals[0], random: arguments.flag("random"))
        Output.status("pairing with \(peripheral.address)…")
        let started = ContinuousClock.now
        let security: LinkSecurity
        do {
            security = try await peripheral.pair()
        } catch {
            try? await context.close(peripheral)
            throw CLIError.failure("pairing with \(peripheral.address) failed: \(error)")
        }
        let elapsed = ContinuousClock.now - started
        let milliseconds = Int(elapsed.components.seconds) * 1000 + Int(elapsed.components.attoseconds / 1_000_000_000_000_000)
        if arguments.flag("json") {
            Output.data(JSONValue.object([
                ("address", .string(peripheral.address.description)), ("authenticated", .bool(security.authenticated)),
                ("secureConnections", .bool(security.secureConnections)), ("keySize", .int(Int(security.keySize))),
                ("milliseconds", .int(milliseconds)),
            ]).description)
        } else {
            Output.data("paired with \(peripheral.address): \(describe(security))")
        }
        Output.status("paired in \(milliseconds) ms")
        try await context.close(peripheral)
        return 0
    }

    static func describe(_ security: LinkSecurity) -> String {
        (security.authenticated ? "authenticated" : "unauthenticated (Just Works)")
            + (security.secureConnections ? ", LE Secure Connections" : ", LE legacy")
            + ", \(security.keySize)-byte key"
    }
}
