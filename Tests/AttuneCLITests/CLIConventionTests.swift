import Foundation
import Testing

/// The conventions every command shares: where global options go, JSON hex, usage errors
/// and their exit status, and no trap from any number on the command line.
@Suite("attune command-line conventions")
struct CLIConventionTests {
    static let demo = CommandTests.demo

    @Test func globalOptionsComeBeforeOrAfterTheCommand() async throws {
        let before = try await AttuneProcess.run(["--transport", "memory", "read", Self.demo, "2a29"])
        #expect(before.status == 0, "stderr: \(before.stderr)")
        #expect(before.stdout == "417474756e65\n")
        let mixed = try await AttuneProcess.run(["--json", "--transport=memory", "read", Self.demo, "2a19"])
        #expect(mixed.status == 0, "stderr: \(mixed.stderr)")
        #expect(mixed.stdout.jsonObject?["value"] as? String == "64")
        let state = try await AttuneProcess.run(["--transport", "memory", "state"])
        #expect(state.status == 0 && state.stdout == "memory: poweredOn\n", "stderr: \(state.stderr)")
        // A global option the command does not take, or one given twice with two values,
        // is a usage error rather than a guess.
        let notApplicable = try await AttuneProcess.run(["--transport", "memory", "decode", "x.btsnoop"])
        #expect(notApplicable.status == 2)
        #expect(notApplicable.stderr.contains("--transport does not apply to 'decode'"), "stderr: \(notApplicable.stderr)")
        let twice = try await AttuneProcess.run(["--transport", "memory", "read", Self.demo, "2a29", "--transport", "hci0"])
        #expect(twice.status == 2)
        #expect(twice.stderr.contains("--transport given twice"), "stderr: \(twice.stderr)")
        for arguments in [["--transport"], ["--json"], ["--random", "read", Self.demo, "2a29"]] {
            let run = try await AttuneProcess.run(arguments)
            #expect(run.status == 2, "attune \(arguments.joined(separator: " ")): \(run.stderr)")
        }
    }

    @Test func jsonValuesAreAlwaysHex() async throws {
        // The demo's long-write characteristic starts empty.
        let read = try await AttuneProcess.run(["read", Self.demo, "0x0025", "--json", "--transport", "memory"])
        #expect(read.status == 0, "stderr: \(read.stderr)")
        let object = try #require(read.stdout.jsonObject)
        #expect(object["length"] as? Int == 0)
        #expect(object["value"] as? String == "")
        // serve: the built-in central reads the empty value, and the read event says "".
        let db = AttuneProcess.temporaryFile(".json")
        defer { try? FileManager.default.removeItem(atPath: db) }
        try Data(#"{"services": [{"uuid": "180f", "characteristics": [{"uuid": "2a19", "properties": ["read"]}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: db))
        let serve = try await AttuneProcess.run(["serve", db, "--json", "--transport", "memory"])
        #expect(serve.status == 0, "stderr: \(serve.stderr)")
        let reads = serve.stdoutLines.compactMap(\.jsonObject).filter { $0["event"] as? String == "read" }
        #expect(!reads.isEmpty)
        #expect(reads.allSatisfy { $0["value"] as? String == "" }, "\(serve.stdout)")
        #expect(!serve.stdout.contains("(empty)"))
    }

    @Test func badHexHandlesAndAddressesAreUsageErrors() async throws {
        let hex = try await AttuneProcess.run(["write", Self.demo, "0x0025", "zz", "--transport", "memory"])
        #expect(hex.status == 2)
        #expect(hex.stderr.contains("invalid hex 'zz'"))
        #expect(hex.stderr.contains("usage: attune write ADDR"), "a usage line: \(hex.stderr)")
        #expect(hex.stderr.contains("attune write --help"))
        let odd = try await AttuneProcess.run(["pdu", "0a0"])
        #expect(odd.status == 2, "stderr: \(odd.stderr)")
        let malformed = try await AttuneProcess.run(["pdu", "0a"])
        #expect(malformed.status == 1, "a PDU that does not decode is not a usage error")
        let handle = try await AttuneProcess.run(["read", Self.demo, "0x10000", "--transport", "memory"])
        #expect(handle.status == 2)
        #expect(handle.stderr.contains("usage: attune read"))
        // The address is checked before the transport is opened: nothing listens on port 1.
        let address = try await AttuneProcess.run(["read", "11:22", "2a29", "--transport", "tcp:127.0.0.1:1"])
        #expect(address.status == 2, "stderr: \(address.stderr)")
        #expect(address.stderr.contains("invalid address '11:22'"))
    }

    @Test func helpListsEachCommandOnce() async throws {
        let help = try await AttuneProcess.run(["--help"])
        #expect(help.status == 0)
        let names = help.stdoutLines.filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }
            .filter { !$0.hasPrefix("--") }
        #expect(names.count == Set(names).count, "listed twice: \(names)")
        #expect(names.filter { $0 == "scan" }.count == 1)
        #expect(names.contains("conformance") && names.contains("demo"))
        #expect(help.stdout.contains("--transport"), "global options are listed")
    }

    /// Numbers from the command line never reach a trapping conversion: each is a usage
    /// error, exit 2, not a Swift runtime trap (exit 132).
    @Test(arguments: ["inf", "-inf", "1e300", "9.3e15", "nan", "-1", "0", "1e-9", "5s"])
    func scanControllerSecondsAreRangeChecked(seconds: String) async throws {
        let run = try await AttuneProcess.run(["scan", "--controller", "tcp:127.0.0.1:1", "--seconds", seconds], timeout: 30)
        #expect(run.status == 2, "--seconds \(seconds): \(run.stderr)")
        #expect(run.stderr.contains("--seconds takes a number of seconds from 0.001 to 86400"), "stderr: \(run.stderr)")
    }

    @Test func everyNumericArgumentIsRangeChecked() async throws {
        let memory = ["--transport", "memory"]
        for arguments in [["scan", "--timeout", "inf"], ["scan", "--timeout", "-1"], ["scan", "--timeout", "99999999999999999999"],
                          ["subscribe", Self.demo, "2a37", "--count", "-1"], ["subscribe", Self.demo, "2a37", "--count", "1e300"],
                          ["serve", "Fixtures/databases/heart-rate.json", "--seconds", "1e300"],
                          ["serve", "Fixtures/databases/heart-rate.json", "--notify", "-5"],
                          ["demo", "--mtu", "70000"], ["demo", "--seconds", "nan"]] {
            let run = try await AttuneProcess.run(arguments + (arguments[0] == "demo" ? [] : memory), timeout: 30)
            #expect(run.status == 2, "attune \(arguments.joined(separator: " ")): \(run.stderr)")
        }
        for conn in ["70000", "-1", "0x10000", "nan"] {
            let run = try await AttuneProcess.run(["replay", "Fixtures/captures/none.btsnoop", "--as", "server", "--conn", conn])
            #expect(run.status == 2, "--conn \(conn): \(run.stderr)")
        }
    }
}
