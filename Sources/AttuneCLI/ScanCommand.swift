import ATTPresentation
import Attune
import Synchronization

/// `attune scan`: advertisements as they arrive.
enum ScanCommand: CLICommand {
    static let name = "scan"
    static let summary = "scan for LE advertisements"
    static let usage = """
        usage: attune scan [--services UUID,...] [--duplicates] [--max-devices N] [--timeout S]
                           [--transport T] [--json]
               attune scan --controller ENDPOINT [--seconds N] [--snoop FILE]
                           [--random-address AA:BB:CC:DD:EE:FF] [--legacy]
                           [--services UUID,...] [--duplicates] [--max-devices N] [--json]

        Prints one line per device (address, address type, RSSI, name, services,
        manufacturer data), its scan response merged into its advertisement, until the
        timeout. A device whose data or name changes later prints again, marked "update".
        With --duplicates, one line per report. Names from the air are printed with
        control characters escaped (\\x1b, \\n).

          --services UUIDS  only devices advertising one of these (comma-separated)
          --duplicates      every report, not each device once
          --max-devices N   devices remembered at once (default 10000); past it the least
                            recently seen is forgotten, and prints again if it comes back
          --timeout S       stop after S seconds (default 10; 0 scans until interrupted)
        \(TransportOption.help)
          --json            one JSON object per advertisement: {"address", "address_type",
                            "rssi", "name", "services", "connectable", "manufacturer_data",
                            "service_data", "tx_power", "update"}

        With --controller, the scan runs straight through the userland host, HCI packet by
        packet: Reset and initialisation, LE Set Random Address, then an active scan
        (extended commands when the controller has them), printed as above:
          --controller      tcp:HOST:PORT, unix:PATH, serial:PATH[@BAUD] or user:hciN
          --seconds         how long to scan (default 5, at most 86400)
          --snoop           write every H4 packet to FILE as btsnoop (datalink 1002)
          --random-address  our static random address (default C0:A7:7E:00:00:01)
          --legacy          use the legacy scan commands even if extended ones exist
        """
    static let flags: Set<String> = ["duplicates", "json", "legacy"]
    static let options: Set<String> = ["services", "timeout", "transport", "snoop", "controller", "seconds",
                                       "random-address", "max-devices"]

    /// What both scan paths share: which devices, how many remembered, how printed.
    struct Listing {
        var services: [BluetoothUUID]?
        var allowDuplicates: Bool
        var deviceLimit: Int
        var json: Bool

        init(_ arguments: Arguments) throws(CLIError) {
            if let list = arguments.option("services") {
                services = try list.split(separator: ",").map { text throws(CLIError) in
                    guard let uuid = BluetoothUUID(String(text)) else { throw .usage("invalid service UUID '\(text)'") }
                    return uuid
                }
            }
            allowDuplicates = arguments.flag("duplicates")
            deviceLimit = try arguments.integer("max-devices", default: ScanTable.defaultLimit, in: 1...1_000_000)
            json = arguments.flag("json")
        }

        func render(_ ad: Advertisement) -> String {
            json ? ScanCommand.json(ad).description : ScanCommand.line(ad)
        }
    }

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.isEmpty else { throw CLIError.usage("scan takes no arguments") }
        let listing = try Listing(arguments)
        if arguments.option("controller") != nil { return try await UserlandScan.run(arguments, listing: listing) }
        for name in ["seconds", "random-address"] where arguments.option(name) != nil {
            throw CLIError.usage("--\(name) goes with --controller")
        }
        if arguments.flag("legacy") { throw CLIError.usage("--legacy goes with --controller") }
        let timeout = try arguments.integer("timeout", default: 10, in: 0...86_400)
        let context = try await CentralContext.open(arguments)
        let stream: AsyncStream<Advertisement>
        do {
            stream = try context.central.scan(services: listing.services, allowDuplicates: listing.allowDuplicates,
                                              deviceLimit: listing.deviceLimit)
        } catch {
            throw CLIError.failure("cannot scan: \(error)")
        }
        Output.status(timeout == 0 ? "scanning" : "scanning for \(timeout) s")
        let scanner = Task {
            var count = 0
            for await ad in stream {
                count += 1
                reportLoss(ad.lostBefore)
                Output.live(listing.render(ad))
            }
            return count
        }
        if timeout > 0 {
            try? await Task.sleep(for: .seconds(timeout))
        } else {
            // Until ^C: the signal cancels this task, which ends the sleep, so the count
            // below is still printed and the context closed (a continuation never resumed
            // would hold the command until the signal trap's 5 s exit, summary unsaid).
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(86_400)) }
        }
        scanner.cancel()
        let count = await scanner.value
        Output.status("\(count) advertisement\(count == 1 ? "" : "s")")
        try await context.close(nil)
        return 0
    }

    /// Reports missed because the output did not keep up: said, never silent.
    static func reportLoss(_ lost: Int) {
        if lost > 0 { Output.status("\(lost) advertising report\(lost == 1 ? "" : "s") lost: the output did not keep up") }
    }

    static func line(_ ad: Advertisement) -> String {
        var parts = ["\(ad.address) (\(ad.addressType.map { "\($0)" } ?? "?"))", "RSSI \(ad.rssi.map { String($0) } ?? "?")"]
        if let name = ad.localName { parts.append("\"\(PeerText.escaped(name))\"") }
        if !ad.serviceUUIDs.isEmpty { parts.append("services " + ad.serviceUUIDs.map(\.description).joined(separator: ",")) }
        for (company, data) in ad.manufacturerData.sorted(by: { $0.key < $1.key }) {
            parts.append("manufacturer 0x\(String(company, radix: 16)) \(hexString(data))")
        }
        if !ad.isConnectable { parts.append("non-connectable") }
        if ad.isUpdate { parts.append("update") }
        return parts.joined(separator: "  ")
    }

    static func json(_ ad: Advertisement) -> JSONValue {
        .object([
            ("address", .string(ad.address.description)),
            ("address_type", ad.addressType.map { .string("\($0)") } ?? .null),
            ("rssi", ad.rssi.map { .int(Int($0)) } ?? .null),
            ("name", ad.localName.map(JSONValue.string) ?? .null),
            ("services", .array((ad.serviceUUIDs + ad.incompleteServiceUUIDs).map { .string($0.description) })),
            ("connectable", .bool(ad.isConnectable)),
            ("manufacturer_data", .object(ad.manufacturerData.sorted { $0.key < $1.key }.map {
                (String($0.key), .hex($0.value))
            })),
            ("service_data", .object(ad.serviceData.sorted { $0.key.description < $1.key.description }.map {
                ($0.key.description, .hex($0.value))
            })),
            ("tx_power", ad.txPowerLevel.map { .int(Int($0)) } ?? .null),
            ("update", .bool(ad.isUpdate)),
        ])
    }
}
