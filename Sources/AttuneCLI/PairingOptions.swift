import Attune

/// `--io`, `--passkey`, `--no-pair` and `--secure-only`: how a command's links pair.
///
/// - `--passkey N`: never prompt. N is typed when the peer displays (IO `keyboard` unless
///   `--io` says otherwise) and shown when we display; MITM protection is required.
/// - `--no-pair`: never pair; an attribute that needs security fails with its ATT error.
/// - neither: IO `keyboard-display`, and a passkey or number the pairing needs is asked
///   on the terminal (``TerminalPairingAgent``).
enum PairingOptions {
    static let help = """
          --passkey N    pair with this 6-digit passkey, never prompting (MITM protection required)
          --no-pair      never pair: an attribute that needs encryption fails with its ATT error
          --io CAP       our IO capabilities when pairing: none, display, display-yes-no, keyboard,
                         keyboard-display (default keyboard with --passkey, else keyboard-display)
        """
    static let ioHelp = """
          --io CAP       our IO capabilities: none, display, display-yes-no, keyboard,
                         keyboard-display (default keyboard with --passkey, else
                         keyboard-display, asking on the terminal)
        """
    static let centralOptions: Set<String> = ["passkey", "io"]
    static let centralFlags: Set<String> = ["no-pair"]

    /// The configuration the command line asks for. Without `--io`, our IO capabilities
    /// are `withPasskey` when `--passkey` is given and `interactive` otherwise (then the
    /// terminal is asked).
    static func parse(_ arguments: Arguments, interactive: PairingIOCapabilities = .keyboardDisplay,
                      withPasskey: PairingIOCapabilities = .keyboard) throws(CLIError) -> PairingConfiguration {
        let passkey = try arguments.option("passkey").map { text throws(CLIError) in try parsePasskey(text) }
        let io = try arguments.option("io").map { text throws(CLIError) in try parseIO(text) }
        if arguments.flag("no-pair") {
            if passkey != nil { throw .usage("--no-pair and --passkey exclude each other") }
            return PairingConfiguration(ioCapabilities: io ?? .noInputNoOutput, automatic: false)
        }
        let secureOnly = arguments.flag("secure-only")
        if let passkey {
            return PairingConfiguration(ioCapabilities: io ?? withPasskey, requiresMITM: true,
                                        secureConnectionsOnly: secureOnly, passkey: passkey)
        }
        let agent = PairingAgent()
        TerminalPairingAgent.start(agent)
        return PairingConfiguration(ioCapabilities: io ?? interactive, secureConnectionsOnly: secureOnly, agent: agent)
    }

    static func parsePasskey(_ text: String) throws(CLIError) -> UInt32 {
        guard !text.isEmpty, text.count <= 6, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber),
              let value = UInt32(text) else {
            throw .usage("invalid --passkey '\(text)': expected 0–999999 (six digits at most)")
        }
        return value
    }

    static func parseIO(_ text: String) throws(CLIError) -> PairingIOCapabilities {
        guard let io = PairingIOCapabilities(rawValue: text) else {
            throw .usage("invalid --io '\(text)': expected one of "
                + PairingIOCapabilities.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return io
    }
}
