import Attune
import BluetoothCore
import Conformance
import Foundation

/// `attune conformance --against ADDR`: the GATT server-role tests run over the air
/// against a device, with Attune as the lower tester.
///
/// The tester is the sans-I/O ``ServerConformanceTester``; this drives it on one
/// ``RawATTChannel``, the link's ATT channel below the GATT client: the tester must send
/// PDUs no GATT client would (unknown opcodes, requests on invalid handles, prepare queues
/// it cancels) and see every PDU the IUT sends.
enum ConformanceAgainstRun {
    /// What reaches the driving loop: a PDU, the end of the link, or a due wake-up.
    enum Input: Sendable {
        /// A PDU of the link with this number (each new link gets the next).
        case pdu([UInt8], link: Int)
        case closed(String, link: Int)
        /// The new link asked for, or nil when none could be opened.
        case reopened(RawATTChannel?, link: Int)
        case tick
        /// A signal: stop with the reports so far.
        case interrupted
    }

    static func run(_ arguments: Arguments, against target: String) async throws -> Int32 {
        let address = try CentralContext.address(target)
        let role = arguments.option("role") ?? "server"
        guard role == "server" else {
            throw CLIError.usage("--against runs the server role only (the IUT is a peripheral); --role client is not built yet")
        }
        let type: BluetoothAddressType
        switch arguments.option("address-type") ?? "public" {
        case "public": type = .public
        case "random": type = .random
        default: throw CLIError.usage("--address-type is public or random")
        }
        guard let tests = ServerTestCatalog.selecting(arguments.values("only")) else {
            let unknown = arguments.values("only").filter { id in !ServerTestCatalog.all.contains { $0.id == id } }
            throw CLIError.usage("no test with id \(unknown.joined(separator: ", ")); --list names them")
        }
        let json = arguments.flag("json")
        let junit = arguments.option("junit")
        let html = arguments.option("html")
        let parsed = try TransportOption.parse(arguments.option("transport"))
        var demo: DemoSession?
        let transport: BluetoothTransport
        if let parsed {
            try TransportOption.requireKernel(for: parsed)
            transport = parsed
        } else {
            demo = try await DemoSession.start()
            Output.status("memory transport: demo peripheral \"\(DemoPeripheral.localName)\" at \(DemoSession.demoAddress)")
            try ConformanceDemoFault.fromEnvironment()?.install(on: demo!.radio)
            transport = .memory(demo!.radio)
        }
        Output.status("connecting to \(address)…")
        let link: RawATTChannel
        do {
            link = try await RawATTChannel.open(on: transport, to: address, type: type)
        } catch {
            let hint = error == .connectionTimeout ? " (is it advertising and in range? with a random address add "
                + "--address-type random)" : ""
            throw CLIError.failure("cannot connect to \(address): \(error)\(hint)")
        }
        Output.status("connected; running \(tests.count) server tests")
        let reports = await drive(link, tests: tests, reopen: {
            try? await RawATTChannel.open(on: transport, to: address, type: type)
        }) { report in
            // Each line as its test ends, even into a file: an interrupted run loses none.
            Output.live(json ? ConformanceReportText.json(report) : ConformanceReportText.line(report))
        }
        link.close()
        // The reports first: after a signal they hold the tests run so far, and stopping
        // the demo may fail on a cancelled task.
        if let junit {
            let xml = ConformanceReportText.junit(reports, against: target)
            guard FileManager.default.createFile(atPath: junit, contents: Data(xml.utf8)) else {
                throw CLIError.failure("--junit \(junit): cannot write the file (check the directory exists and is writable)")
            }
        }
        if let html {
            let page = ConformanceHTMLReport(reports: reports, tests: tests, target: target).html
            guard FileManager.default.createFile(atPath: html, contents: Data(page.utf8)) else {
                throw CLIError.failure("--html \(html): cannot write the file (check the directory exists and is writable)")
            }
        }
        Output.data(ConformanceReportText.summary(reports))
        try? await demo?.stop()
        return reports.contains { $0.verdict.isFailure } ? 1 : 0
    }

    /// `--list`: every test id with its title and the precondition it needs.
    static func list() -> Int32 {
        for t in ServerTestCatalog.all { Output.data("\(t.id)  \(t.title)  (needs: \(t.precondition); judged by \(t.specSection))") }
        return 0
    }

    /// Runs the tester on `first` until every test has a report, or a signal stops the
    /// run (then the reports so far). When the tester asks for a new link (the IUT
    /// disconnected, or a transaction timed out), the link is closed and `reopen` makes
    /// another; inputs are tagged with their link, so a late PDU of an old one is dropped.
    static func drive(_ first: RawATTChannel, tests: [ServerTestCase],
                      reopen: @escaping @Sendable () async -> RawATTChannel?,
                      report: (ConformanceTestReport) -> Void) async -> [ConformanceTestReport] {
        let clock = MonotonicClock()
        let (inputs, feed) = AsyncStream<Input>.makeStream()
        // SIGINT or SIGTERM (main.swift runs the Shutdown steps before cancelling): stop
        // at once, with the reports so far, and no new link.
        Shutdown.register { feed.yield(.interrupted) }
        func listen(_ link: RawATTChannel, _ generation: Int) -> Task<Void, Never> {
            Task {
                while true {
                    let batch = await link.receive()
                    for event in batch {
                        switch event {
                        case .pdu(let pdu): feed.yield(.pdu(pdu, link: generation))
                        case .closed(let reason):
                            feed.yield(.closed("\(reason)", link: generation))
                            return
                        }
                    }
                    if batch.isEmpty { return }
                }
            }
        }
        var link = first
        var generation = 0
        var reader = listen(link, generation)
        var timer: Task<Void, Never>?
        var tester = ServerConformanceTester(tests: tests)
        func perform(_ actions: [TesterAction]) {
            for action in actions {
                switch action {
                case .send(let bytes): link.send(bytes)
                case .wake(let at):
                    timer?.cancel()
                    let instant = clock.instant(at)
                    timer = Task {
                        try? await Task.sleep(until: instant, clock: .continuous)
                        if !Task.isCancelled { feed.yield(.tick) }
                    }
                case .report(let r): report(r)
                case .restartLink(let reason):
                    Output.status("a new link to the IUT: \(reason)")
                    timer?.cancel()
                    reader.cancel()
                    link.close()
                    generation += 1
                    let g = generation
                    Task { feed.yield(.reopened(await reopen(), link: g)) }
                case .finished: break
                }
            }
        }
        perform(tester.start(at: clock.now))
        loop: for await input in inputs {
            if tester.isFinished { break }
            switch input {
            case .pdu(let pdu, let g) where g == generation: perform(tester.receive(pdu, at: clock.now))
            case .closed(let reason, let g) where g == generation: perform(tester.linkLost(at: clock.now, reason: reason))
            case .reopened(let new?, let g) where g == generation:
                link = new
                reader = listen(new, g)
                perform(tester.linkRestored(at: clock.now))
            case .reopened(nil, let g) where g == generation:
                perform(tester.linkClosed(at: clock.now, reason: "the IUT could not be reconnected"))
            case .tick: perform(tester.tick(at: clock.now))
            case .interrupted: break loop
            case .pdu, .closed, .reopened: break
            }
            if tester.isFinished { break }
        }
        timer?.cancel()
        reader.cancel()
        link.close()
        feed.finish()
        return tester.reports
    }
}
