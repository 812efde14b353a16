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
        case pdu([UInt8])
        case closed(String)
        case tick
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
        let reports = await drive(link, tests: tests) { report in
            Output.data(json ? ConformanceReportText.json(report) : ConformanceReportText.line(report))
        }
        link.close()
        try await demo?.stop()
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
        return reports.contains { $0.verdict.isFailure } ? 1 : 0
    }

    /// `--list`: every test id with its title and the precondition it needs.
    static func list() -> Int32 {
        for t in ServerTestCatalog.all { Output.data("\(t.id)  \(t.title)  (needs: \(t.precondition); judged by \(t.specSection))") }
        return 0
    }

    /// Runs the tester on `link` until every test has a report.
    static func drive(_ link: RawATTChannel, tests: [ServerTestCase],
                      report: (ConformanceTestReport) -> Void) async -> [ConformanceTestReport] {
        let clock = MonotonicClock()
        let (inputs, feed) = AsyncStream<Input>.makeStream()
        let reader = Task {
            while true {
                let batch = await link.receive()
                for event in batch {
                    switch event {
                    case .pdu(let pdu): feed.yield(.pdu(pdu))
                    case .closed(let reason):
                        feed.yield(.closed("\(reason)"))
                        return
                    }
                }
                if batch.isEmpty { return }
            }
        }
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
                case .finished: break
                }
            }
        }
        perform(tester.start(at: clock.now))
        for await input in inputs {
            if tester.isFinished { break }
            switch input {
            case .pdu(let pdu): perform(tester.receive(pdu, at: clock.now))
            case .tick: perform(tester.tick(at: clock.now))
            case .closed(let reason): perform(tester.linkClosed(at: clock.now, reason: reason))
            }
            if tester.isFinished { break }
        }
        timer?.cancel()
        reader.cancel()
        feed.finish()
        return tester.reports
    }
}
