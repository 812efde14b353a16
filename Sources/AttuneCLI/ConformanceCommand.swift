import ATT
import ATTPresentation
import GATT
import Replay
import Conformance

/// `attune conformance VECTORS.json --databases DBS.json`: runs the GATT conformance
/// vectors against Attune's own engines. `attune conformance --against ADDR`: runs the
/// GATT server-role tests against a device (``ConformanceAgainstRun``).
enum ConformanceCommand: CLICommand {
    static let name = "conformance"
    static let summary = "run the GATT conformance vectors against our engines, or the GATT server tests against a device"
    static let usage = """
        usage: attune conformance VECTORS.json --databases DBS.json [--role server|client] [--client-startup full|seeded] [--json] [--only ID]
               attune conformance VECTORS.json --list [--role server|client]
               attune conformance --against ADDR [--address-type public|random] [--transport T] [--role server]
                                  [--only ID]... [--json] [--junit FILE] [--html FILE]
               attune conformance --list

        Runs every vector of the chosen role (both when --role is absent) through an
        in-memory bearer and compares every iut->tester PDU byte for byte. Prints one line
        per test:
          PASS /TP/GAR/SR/BV-01-C/small
          FAIL ID: step N: expected HEX (decoded) vs got HEX (decoded)
          NOT RUN ID: reason          (e.g. client vectors before the client engine exists)
        and ends with "N passed, M failed". The exit status is 1 when any test failed.
        The file is read one vector at a time, so memory holds one vector; a malformed
        file is an error naming the JSON path and byte offset of the fault.

          --databases DBS.json   the databases the vectors name (gatt-dbs.json)
          --role server|client   run only one role
          --only ID              run only the vector with this id
          --list                 print each vector's id and role (after --role), run nothing
          --client-startup full|seeded
                                 client vectors: discover the database as BlueZ does and
                                 replay every PDU (full, the default), or seed the cache
                                 from the named database and replay only Exchange MTU and
                                 the procedure phase (seeded)
          --json                 print one JSON document instead of lines

        With --against ADDR, Attune is the lower tester and the device at ADDR the
        implementation under test (IUT), in the GATT server role: the tester exchanges MTU,
        discovers the whole database, then runs each GATT/SR test of the catalog (ids as in
        the Bluetooth SIG test suite, e.g. GATT/SR/GAR/BV-01-C) on handles that fit the
        test's precondition. One line per test as it ends:
          PASS  ID  note     FAIL  ID  reason     INCONCLUSIVE  ID  reason     NOT_APPLICABLE  ID  reason
        and "N passed, M failed, K inconclusive, J not applicable". Exit 0 when nothing
        failed, 1 when something did, 2 on a usage error. No prompts: it runs unattended.

          --against ADDR         the IUT (on memory: the demo peripheral, \(DemoSession.demoAddress))
          --address-type T       public (the default) or random
          --transport T          hci0, tcp:HOST:PORT, unix:PATH, serial:PATH, user:hci0 or memory
          --only ID              run only this test; repeat it for more
          --list                 (without VECTORS.json) print every test id, title and precondition
          --json                 one JSON object per test: {"id","verdict","reason","exchange":[{"dir","pdu"}]}
          --junit FILE           also write a JUnit XML file, one testcase per test
          --html FILE            also write one self-contained HTML page: a summary, then each
                                 test with its reason, spec section and a ladder of its PDUs
        """
    static let flags: Set<String> = ["json", "list"]
    static let options: Set<String> = ["databases", "role", "only", "client-startup", "against", "address-type", "transport",
                                       "junit", "html"]
    static let repeatableOptions: Set<String> = ["only"]

    static func run(_ arguments: Arguments) async throws -> Int32 {
        if let target = arguments.option("against") {
            guard arguments.positionals.isEmpty else { throw CLIError.usage("--against takes no VECTORS.json") }
            if arguments.flag("list") { return ConformanceAgainstRun.list() }
            return try await ConformanceAgainstRun.run(arguments, against: target)
        }
        if arguments.positionals.isEmpty, arguments.flag("list") { return ConformanceAgainstRun.list() }
        for option in ["address-type", "transport", "junit", "html"] where arguments.option(option) != nil {
            throw CLIError.usage("--\(option) goes with --against ADDR")
        }
        // Only --against takes several; the vectors run one id or all of them.
        if arguments.values("only").count > 1 { throw CLIError.usage("with VECTORS.json, --only is given once") }
        guard arguments.positionals.count == 1, let vectors = arguments.positionals.first else {
            throw CLIError.usage("give exactly one VECTORS.json")
        }
        var role: ConformanceVector.Role?
        if let r = arguments.option("role") {
            guard let parsed = ConformanceVector.Role(rawValue: r) else { throw CLIError.usage("--role is server or client") }
            role = parsed
        }
        if arguments.flag("list") {
            do {
                try ConformanceVector.forEach(inFile: vectors) { (v: ConformanceVector) throws(ConformanceError) in
                    if role == nil || v.role == role { Output.data("\(v.id) \(v.role.rawValue)") }
                }
            } catch {
                throw CLIError.failure(error.description)
            }
            return 0
        }
        guard let databases = arguments.option("databases") else { throw CLIError.usage("--databases DBS.json is required") }
        var suite: ConformanceSuite
        do {
            suite = try ConformanceSuite(databasesFile: databases)
        } catch {
            throw CLIError.failure(error.description)
        }
        if let startup = arguments.option("client-startup") {
            guard let mode = ClientVectorRunner.StartupMode(rawValue: startup) else {
                throw CLIError.usage("--client-startup is full or seeded")
            }
            suite.client = ClientVectorRunner(mode: mode)
        }
        let only = arguments.option("only")
        let json = arguments.flag("json")
        var results: [ConformanceResult] = []
        do {
            try suite.run(vectorsFile: vectors, role: role, only: only) { result in
                // Lines go out as vectors run; JSON needs them all.
                if !json { Output.data(result.line) }
                results.append(result)
            }
        } catch {
            throw CLIError.failure(error.description)
        }
        if let only, results.isEmpty { throw CLIError.failure("no vector with id \(only)") }
        let failed = results.contains { if case .failed = $0.outcome { true } else { false } }
        let notRun = results.filter { if case .notRun = $0.outcome { true } else { false } }.count
        if json {
            let passed = results.filter { $0.outcome == .passed }.count
            Output.data(JSONValue.object([
                ("results", .array(results.map(\.json))),
                ("passed", .int(passed)), ("failed", .int(results.count - passed - notRun)), ("not_run", .int(notRun)),
            ]).description)
        } else {
            if notRun > 0 { Output.data("\(notRun) not run") }
            Output.data(ConformanceSuite.summary(results))
        }
        return failed ? 1 : 0
    }
}
