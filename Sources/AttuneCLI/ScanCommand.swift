import ATTPresentation
import Attune

/// `attune scan`: advertisements as they arrive.
enum ScanCommand: CLICommand {
    static let name = "scan"
    static let summary = "scan for LE advertisements"
    static let usage = """
        usage: attune scan [--services UUID,...] [--duplicates] [--timeout S] [--transport T] [--json]
               attune scan --controller ENDPOINT [--seconds N] [--snoop FILE]
                           [--random-address AA:BB:CC:DD:EE:FF] [--legacy] [--json]

        Prints one line per device (address, address type, RSSI, name, services,
        manufacturer data), or per report with --duplicates, until the timeout.

          --services UUIDS  only devices advertising one of these (comma-separated)
          --duplicates      every report, not each device once
          --timeout S       stop after S seconds (default 10; 0 scans until interrupted)
        \(TransportOption.help)
          --json            one JSON object per advertisement: {"address", "address_type",
                            "rssi", "name", "services", "connectable", "manufacturer_data",
                            "service_data", "tx_power"}

        With --controller, the scan runs straight through the userland host, HCI packet by
        packet: Reset and initialisation, LE Set Random Address, then an active scan
        (extended commands when the controller has them), one line per advertiser:
          --controller      tcp:HOST:PORT, unix:PATH, serial:PATH[@BAUD] or user:hciN
          --seconds         how long to scan (default 5)
          --snoop           write every H4 packet to FILE as btsnoop (datalink 1002)
          --random-address  our static random address (default C0:A7:7E:00:00:01)
          --legacy          use the legacy scan commands even if extended ones exist
        """
    static let flags: Set<String> = ["duplicates", "json", "legacy"]
    static let options: Set<String> = ["services", "timeout", "transport", "snoop", "controller", "seconds", "random-address"]

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.isEmpty else { throw CLIError.usage("scan takes no arguments") }
        if arguments.option("controller") != nil { return try await UserlandScan.run(arguments) }
        for name in ["seconds", "random-address"] where arguments.option(name) != nil {
            throw CLIError.usage("--\(name) goes with --controller")
        }
        if arguments.flag("legacy") { throw CLIError.usage("--legacy goes with --controller") }
        var services: [BluetoothUUID]?
        if let list = arguments.option("services") {
            services = try list.split(separator: ",").map { text throws(CLIError) in
                guard let uuid = BluetoothUUID(String(text)) else { throw .usage("invalid service UUID '\(text)'") }
                return uuid
            }
        }
        let timeout = try arguments.integer("timeout", default: 10, in: 0...86_400)
        let context = try await CentralContext.open(arguments)
        let stream: AsyncStream<Advertisement>
        do {
            stream = try context.central.scan(services: services, allowDuplicates: arguments.flag("duplicates"))
        } catch {
            throw CLIError.failure("cannot scan: \(error)")
        }
        Output.status(timeout == 0 ? "scanning" : "scanning for \(timeout) s")
        let json = arguments.flag("json")
        let scanner = Task {
            var count = 0
            for await ad in stream {
                count += 1
                Output.live(json ? Self.json(ad).description : Self.line(ad))
            }
            return count
        }
        if timeout > 0 {
            try? await Task.sleep(for: .seconds(timeout))
        } else {
            await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }   // until ^C
        }
        scanner.cancel()
        let count = await scanner.value
        Output.status("\(count) advertisement\(count == 1 ? "" : "s")")
        try await context.close(nil)
        return 0
    }

    static func line(_ ad: Advertisement) -> String {
        var parts = ["\(ad.address) (\(ad.addressType.map { "\($0)" } ?? "?"))", "RSSI \(ad.rssi.map { String($0) } ?? "?")"]
        if let name = ad.localName { parts.append("\"\(name)\"") }
        if !ad.serviceUUIDs.isEmpty { parts.append("services " + ad.serviceUUIDs.map(\.description).joined(separator: ",")) }
        for (company, data) in ad.manufacturerData.sorted(by: { $0.key < $1.key }) {
            parts.append("manufacturer 0x\(String(company, radix: 16)) \(hexString(data))")
        }
        if !ad.isConnectable { parts.append("non-connectable") }
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
        ])
    }
}
