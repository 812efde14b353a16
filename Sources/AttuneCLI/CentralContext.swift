import Attune

/// A central opened on the `--transport` of a command, with the demo peripheral beside
/// it for `memory`. Fails with the cause and its fix when the transport is unusable.
struct CentralContext {
    let central: CentralManager
    let demo: DemoSession?
    /// The `--snoop` capture of a non-memory transport (the demo session owns its own).
    var snoop: SnoopFile? = nil

    /// Opens the central. Every command that connects names its ADDR first, so a first
    /// positional is checked as an address here, before the transport is touched: a typo
    /// is a usage error (exit 2) whatever state the radio is in.
    ///
    /// - Parameter addressFirst: false for a command whose first positional is not ADDR
    ///   (`attune replay FILE --against ADDR`).
    /// - Parameter pairs: the command takes the pairing options (``PairingOptions``).
    static func open(_ arguments: Arguments, addressFirst: Bool = true, pairs: Bool = false) async throws(CLIError) -> CentralContext {
        if addressFirst, let text = arguments.positionals.first { _ = try address(text) }
        // Checked on every transport, so a bad --passkey is a usage error wherever it is given.
        let pairing = pairs ? try PairingOptions.parse(arguments) : PairingConfiguration()
        if let transport = try TransportOption.parse(arguments.option("transport")) {
            try TransportOption.requireKernel(for: transport)
            if case .kernel = transport, pairs, arguments.option("passkey") != nil || arguments.option("io") != nil {
                Output.status("note: --passkey and --io apply to the userland host; on \(transport) the kernel pairs "
                    + "with its own agent (bluetoothctl)")
            }
            let snoop = try TransportOption.openSnoop(arguments.option("snoop"), keepingKeys: arguments.flag("snoop-keys"))
            // The store keeps bonds and our identity across runs, so the next command
            // encrypts with the bond instead of pairing again.
            let central = CentralManager(transport: transport, store: BondStore.open(for: transport), snoop: snoop,
                                         pairing: pairing)
            Shutdown.register(central)
            ControllerWarningReport.register(central)
            if let cause = await ManagerReadiness.settled({ central.status }).cause { throw .failure(cause.description) }
            return CentralContext(central: central, demo: nil, snoop: snoop)
        }
        let demo = try await DemoSession.start(snoopPath: arguments.option("snoop"))
        Output.status("memory transport: demo peripheral \"\(DemoPeripheral.localName)\" at \(DemoSession.demoAddress)")
        let central = CentralManager(transport: .memory(demo.radio), pairing: pairing)
        Shutdown.register(central)
        return CentralContext(central: central, demo: demo)
    }

    /// Connects to ADDR, discovering the whole database (or validating a cached one)
    /// within `discoveryTimeout`.
    func connect(_ text: String, random: Bool, timeout: Duration = .seconds(30),
                 discoveryTimeout: Duration = DiscoveryDeadline.defaultTimeout) async throws(CLIError) -> Peripheral {
        let address = try Self.address(text)
        let peripheral = central.peripheral(address: address, type: random ? .random : .public)
        Output.status("connecting to \(address)…")
        do {
            try await central.connect(peripheral, timeout: timeout, discoveryTimeout: discoveryTimeout)
        } catch {
            throw .failure("cannot connect to \(address): \(error)\(Self.hint(error))")
        }
        Output.status("connected, ATT_MTU \(await peripheral.mtu)")
        return peripheral
    }

    /// ADDR as given on the command line.
    static func address(_ text: String) throws(CLIError) -> BluetoothAddress {
        guard let address = BluetoothAddress(text) else {
            throw .usage("invalid address '\(text)': expected XX:XX:XX:XX:XX:XX")
        }
        return address
    }

    static func hint(_ error: AttuneError) -> String {
        switch error {
        case .connectionTimeout: " (is it advertising and in range? with a random address add --random)"
        default: ""
        }
    }

    /// The whole tree, each level discovered as Core Bluetooth apps do: the primary
    /// services, then what each service includes (following includes of included
    /// services too, so secondary services are reached), then characteristics and
    /// descriptors of every service found. In handle order.
    static func tree(of peripheral: Peripheral) async throws(CLIError) -> [Service] {
        do {
            var services = try await peripheral.discoverServices()
            // Each service is asked once, by start handle, so includes that loop back
            // (which a hostile peer may declare) end the walk instead of repeating it.
            var seen = Set(services.map(\.startHandle))
            var next = 0
            while next < services.count {
                for s in try await peripheral.discoverIncludedServices(for: services[next])
                where seen.insert(s.startHandle).inserted {
                    services.append(s)
                }
                next += 1
            }
            // The include declarations, as the peripheral recorded them on each service.
            let revealed = await peripheral.services ?? []
            let includes = Dictionary(revealed.map { ($0.startHandle, $0.includedServices ?? []) },
                                      uniquingKeysWith: { first, _ in first })
            for i in services.indices { services[i].includedServices = includes[services[i].startHandle] ?? [] }
            services.sort { $0.startHandle < $1.startHandle }
            for i in services.indices {
                var characteristics = try await peripheral.discoverCharacteristics(for: services[i])
                for j in characteristics.indices {
                    characteristics[j].descriptors = try await peripheral.discoverDescriptors(for: characteristics[j])
                }
                services[i].characteristics = characteristics
            }
            return services
        } catch {
            throw .failure("discovery failed: \(error)")
        }
    }

    /// Disconnects and stops the demo peripheral.
    func close(_ peripheral: Peripheral?) async throws(CLIError) {
        if let peripheral {
            await central.cancelConnection(peripheral)
            // Leave only once the controller reported the disconnection: a process that
            // exits first leaves the link up in the controller (an H4 dongle or emulator
            // keeps it across our HCI Reset), and the next command cannot connect.
            let deadline = ContinuousClock.now + .seconds(6)
            while await peripheral.state != .disconnected, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        try await demo?.stop()
        try TransportOption.checkSnoop(snoop)
    }
}
