import ATT
import ATTPresentation

/// `attune pdu HEX...`: a one-line dissector for ATT PDUs.
enum PDUCommand: CLICommand {
    static let name = "pdu"
    static let summary = "decode ATT PDUs given in hex and print them, one per line"
    static let usage = """
        usage: attune pdu [--json] HEX...

        Decodes each HEX argument as one complete ATT PDU (opcode first, no L2CAP header)
        and prints it like a dissector:
          $ attune pdu 080100ffff0328
          Read By Type Request 0x0001..0xffff type 0x2803 (Characteristic)

          --json   print one JSON object per PDU: {"opcode", "name", ...fields}

        A malformed PDU prints the reason and the byte offset; the exit status is then 1.
        """
    static let flags: Set<String> = ["json"]

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard !arguments.positionals.isEmpty else { throw CLIError.usage("give at least one PDU in hex") }
        let json = arguments.flag("json")
        // Every argument is checked as hex first: bad hex is a usage error (exit 2), a PDU
        // that does not decode is what this command reports (exit 1).
        var raws: [(text: String, bytes: [UInt8])] = []
        for text in arguments.positionals { raws.append((text, try Hex.parse(text))) }
        var failed = false
        for (text, raw) in raws {
            do {
                let pdu = try ATTPDU.decode(raw)
                Output.data(json ? pdu.json.description : pdu.description)
            } catch {
                failed = true
                if json {
                    Output.data(JSONValue.object([("pdu", .string(text)), ("error", .string(error.description)),
                                                  ("offset", .int(error.offset))]).description)
                }
                Output.error("\(text): \(error)")
            }
        }
        return failed ? 1 : 0
    }
}
