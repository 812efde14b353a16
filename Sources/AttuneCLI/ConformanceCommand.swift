import ATT
import ATTPresentation
import GATT
import Replay

/// `attune conformance VECTORS.json --databases DBS.json`: runs the GATT conformance
/// vectors against Attune's own engines.
enum ConformanceCommand: CLICommand {
    static let name = "conformance"
    static let summary = "run the GATT conformance vectors against Attune's server (and client) engines"
    static let usage = """
        usage: attune conformance VECTORS.json --databases DBS.json [--role server|client] [--client-startup full|seeded] [--json] [--only ID]
               attune conformance VECTORS.json --list [--role server|client]

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
        """
    static let flags: Set<String> = ["json", "list"]
    static let options: Set<String> = ["databases", "role", "only", "client-startup"]

    static func run(_ arguments: Arguments) async throws -> Int32 {
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
