import Testing

/// The pairing options on the command line, without a radio: bad values are usage errors
/// (exit 2) on every transport, and `attune pair` says why a transport cannot pair.
@Suite("attune pair and the pairing options")
struct PairingOptionTests {
    static let demo = "C0:00:00:00:00:01"

    @Test(.timeLimit(.minutes(10)))
    func badPasskeyIsAUsageError() async throws {
        for passkey in ["1234567", "12a456", "-1", ""] {
            let run = try await AttuneProcess.run(["read", Self.demo, "2a29", "--passkey", passkey, "--transport", "memory"],
                                                  timeout: 60)
            #expect(run.status == 2, "--passkey '\(passkey)': \(run.stderr)")
            #expect(run.stderr.contains("--passkey"), "\(run.stderr)")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func noPairAndPasskeyExcludeEachOther() async throws {
        let run = try await AttuneProcess.run(["read", Self.demo, "2a29", "--passkey", "123456", "--no-pair",
                                               "--transport", "memory"], timeout: 60)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("exclude each other"), "\(run.stderr)")
    }

    @Test(.timeLimit(.minutes(10)))
    func badIOIsAUsageError() async throws {
        let run = try await AttuneProcess.run(["pair", Self.demo, "--io", "telepathy", "--transport", "memory"], timeout: 60)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("none, display, display-yes-no, keyboard, keyboard-display"), "\(run.stderr)")
    }

    @Test("read --no-pair of an open value works as before", .timeLimit(.minutes(10)))
    func noPairReadsOpenValues() async throws {
        let run = try await AttuneProcess.run(["read", Self.demo, "2a29", "--no-pair", "--transport", "memory"], timeout: 60)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "417474756e65\n")
    }

    @Test("pair on the memory radio fails naming why, and the help lists pair", .timeLimit(.minutes(10)))
    func pairOnMemoryFails() async throws {
        let run = try await AttuneProcess.run(["pair", Self.demo, "--transport", "memory"], timeout: 60)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("no Security Manager"), "\(run.stderr)")
        let help = try await AttuneProcess.run(["--help"], timeout: 60)
        #expect(help.stdout.contains("  pair "), "\(help.stdout)")
        let usage = try await AttuneProcess.run(["pair", "--help"], timeout: 60)
        #expect(usage.stdout.hasPrefix("usage: attune pair ADDR"), "\(usage.stdout)")
    }
}
