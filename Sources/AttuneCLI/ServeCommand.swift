import Attune
import Foundation

/// `attune serve DB.json`: the peripheral role, serving a JSON database and printing
/// every request as it arrives.
enum ServeCommand: CLICommand {
    static let name = "serve"
    static let summary = "serve a GATT database from JSON, or the peripheral a capture recorded, and print requests"
    static let usage = """
        usage: attune serve DB.json [--name NAME] [--seconds N] [--notify MS] [--max-centrals N]
                                    [--io CAP] [--passkey N] [--transport T] [--snoop FILE] [--json]
               attune serve --capture FILE [--conn N] [--speed X] [--name NAME] [--seconds N] [--transport T]
                                    [--snoop FILE] [--json]

        Publishes the services of DB.json (the "services" form of Docs/database-json.md;
        GAP and GATT are added), advertises them with NAME, and prints connections,
        subscriptions and every read and write as it arrives. Characteristic values are
        answered by this command from the file's values (writes update them), so every
        request is seen; descriptors and CCCDs are answered by the server itself.

          --name NAME    the advertised and GAP device name (default "Attune")
          --seconds N    stop after N seconds (default: until interrupted; with
                         --transport memory, once the built-in test central is done)
          --notify MS    every MS milliseconds, count up the last byte of each value that
                         notifies or indicates and send it to the centrals subscribed
          --max-centrals N
                         hold at most N centrals at once (default: as many as the
                         controller accepts); connectable advertising resumes after each
                         connection while there is room, and after each disconnection
          --io CAP       our IO capabilities when a central pairs: none (default; Just
                         Works), display, display-yes-no, keyboard, keyboard-display; a
                         passkey to show goes to stderr, questions are asked on the terminal
          --passkey N    the 6-digit passkey centrals pair with (we display it: --io
                         display unless given); MITM protection required
          --transport T  hci0 (default: the first kernel adapter), tcp:HOST:PORT, unix:PATH,
                         serial:PATH, user:hci0, or memory (an in-process radio where a
                         built-in central connects, reads and writes every characteristic,
                         subscribes to and unsubscribes from each, then disconnects)
          --snoop FILE   record the session as btsnoop (datalink 1002): every H4 packet on
                         tcp:, unix:, serial: and user:; on hci0 and memory, the HCI a
                         controller would have exchanged for each link
          --json         one object per event: {"event": "connected"|"read"|"write"|
                         "subscription"|"written"|"disconnected", "ts", "central", ...}

        With --capture FILE it serves the peripheral recorded in a capture instead: the
        database rebuilt from the captured responses (the captured handles and values;
        our server's receive MTU the captured one), the notifications and indications
        the captured server sent re-sent to each central at their captured times (from
        its connection, or from its subscription to that characteristic when the capture
        subscribed first), and writes the captured server refused refused with its error.
        On --transport memory a built-in central reads everything, subscribes to
        everything, waits for the pushes and disconnects.

          --capture FILE a btsnoop, btmon, pcap or pcapng capture
          --conn N       the connection (HCI handle, decimal or 0x hex) to serve; the
                         database is rebuilt from every connection on that handle
                         (default: the first connection, database from all)
          --speed X      pushes X times faster than captured, 0.001…1000 (default 1)
        """
    static let flags: Set<String> = ["json", "snoop-keys"]
    static let options: Set<String> = ["name", "seconds", "notify", "max-centrals", "io", "passkey", "transport", "snoop",
                                       "capture", "conn", "speed"]

    static func run(_ arguments: Arguments) async throws -> Int32 {
        if let capture = arguments.option("capture") {
            for option in ["notify", "max-centrals"] where arguments.option(option) != nil {
                throw CLIError.usage("--\(option) serves a DB.json; --capture serves what the capture holds")
            }
            return try await ServeCaptureRun.run(capture, arguments)
        }
        for option in ["conn", "speed"] where arguments.option(option) != nil {
            throw CLIError.usage("--\(option) goes with --capture FILE")
        }
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            throw CLIError.usage("give exactly one DB.json")
        }
        let seconds = try arguments.integer("seconds", default: 0, in: 0...86_400)
        let notifyInterval = try arguments.integer("notify", default: 0, in: 0...3_600_000)
        let maximumCentrals = arguments.option("max-centrals") == nil
            ? nil : try arguments.integer("max-centrals", default: 1, in: 1...64)
        let name = arguments.option("name") ?? "Attune"
        let pairing = try PairingOptions.parse(arguments, interactive: .noInputNoOutput, withPasskey: .display)
        var definitions: [ServiceDefinition]
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            definitions = try DatabaseJSON.serviceDefinitions(from: data)
        } catch let error as DatabaseError {
            throw CLIError.failure("\(path): \(error)")
        } catch {
            throw CLIError.failure("\(path): cannot read the file: \(error.localizedDescription)")
        }
        // Every characteristic value goes through this command, so every read and write prints.
        var initial: [[UInt8]] = []
        for s in definitions.indices {
            for c in definitions[s].characteristics.indices {
                initial.append(definitions[s].characteristics[c].value)
                definitions[s].characteristics[c].kind = .dynamic
            }
        }

        let parsed = try TransportOption.parse(arguments.option("transport"))
        let radio = parsed == nil ? MemoryRadio() : nil
        let transport = parsed ?? .memory(radio!)
        try TransportOption.requireKernel(for: transport)
        let snoop = try TransportOption.openSnoop(arguments.option("snoop"), keepingKeys: arguments.flag("snoop-keys"))
        let manager: PeripheralManager
        let published: [PublishedService]
        do {
            manager = try PeripheralManager(transport: transport, name: name, snoop: snoop,
                                            store: BondStore.open(for: transport), pairing: pairing)
            Shutdown.register(manager)
            if let cause = await ManagerReadiness.settled({ manager.status }).cause { throw CLIError.failure(cause.description) }
            published = try await manager.add(contentsOf: definitions)
            await manager.setMaximumCentrals(maximumCentrals)
            try await manager.startAdvertising(localName: name, serviceUUIDs: definitions.filter(\.isPrimary).map(\.uuid))
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.failure("cannot serve \(path): \(error)")
        }
        let values = ServedValues(published: published, initial: initial)
        Output.status("serving \(published.count) services as \"\(name)\" on \(transport.description)")
        let printer = ServeEventPrinter(json: arguments.flag("json"), values: values)
        let requests = Task { for await request in manager.requests { await printer.answer(request, manager) } }
        let events = Task { for await event in manager.events { await printer.show(event) } }
        let notifier = Task {
            guard notifyInterval > 0 else { return }
            let pushing = published.flatMap(\.characteristics).filter { !$0.properties.isDisjoint(with: [.notify, .indicate]) }
            while !Task.isCancelled {
                do { try await Task.sleep(for: .milliseconds(notifyInterval)) } catch { return }
                for c in pushing where !(await manager.subscribedCentrals(for: c)).isEmpty {
                    let value = await values.bump(c.valueHandle)
                    // false: a link is full; wait for room rather than drop the value.
                    while !(await manager.updateValue(value, for: c)) {
                        if Task.isCancelled { return }
                        await manager.readyToUpdateSubscribers()
                    }
                    await printer.notified(c, value)
                }
            }
        }

        let status = await BuiltInCentral.serveLifetime(radio: radio, seconds: seconds) { radio in
            try await ServeExerciser.run(on: radio, name: name)
        }
        // Centrals see the link end now, and the disconnections are printed.
        await manager.disconnectAll()
        requests.cancel()
        events.cancel()
        notifier.cancel()
        // Stop recording before the built-in central's radio outlives this command.
        radio?.setTap(nil)
        try TransportOption.checkSnoop(snoop)
        return status
    }
}
