import BluetoothCore
import ControllerTestSupport
import Foundation
import Testing

/// `attune read` of a value Bumble serves only over a link encrypted with an
/// authenticated (MITM) key (lab.py --protected-auth): with `--passkey N` our host types
/// the passkey Bumble displays; a wrong one fails and never encrypts; `--no-pair` never
/// pairs; without a terminal the error names `--passkey`.
extension BumbleCLITests {
    static let passkey = "123456"
    /// Bumble displays the passkey (DisplayOnly, MITM asked); its centrals type it, for
    /// Bumble's own figure between two of its devices.
    static let passkeyLab = ["--protected-auth", "--io", "display", "--central-io", "keyboard", "--mitm",
                             "--passkey", passkey]
    static let protectedValue = hexString(Array("attune-encrypted".utf8))

    @Test("read --passkey N pairs Passkey Entry (Bumble displays N) and reads a value needing an authenticated key",
          .timeLimit(.minutes(20)))
    func readWithPasskey() async throws {
        let lab = try await BumbleLab.start(role: "peripheral,peripheral,central", devices: 3, arguments: Self.passkeyLab)
        defer { lab.stop() }
        let handle = try #require(lab.handles["protected"])
        let run = try await AttuneProcess.run(["read", lab.address, String(format: "0x%04x", handle), "--random",
                                               "--passkey", Self.passkey, "--json", "--transport", lab.transport],
                                              timeout: 90)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdout.jsonObject?["value"] as? String == Self.protectedValue, "stdout: \(run.stdout)")
        let started = lab.waitFor("pairing_start", timeout: 5) { _ in true }
        let shown = lab.waitFor("passkey_displayed", timeout: 5) { _ in true }
        #expect((shown?["number"] as? NSNumber)?.intValue == 123_456, "Bumble displayed the passkey we typed")
        let paired = lab.waitFor("paired", timeout: 5) { _ in true }
        #expect((paired?["authenticated"] as? NSNumber)?.boolValue == true, "\(String(describing: paired))")
        let ours = Self.milliseconds(from: started, to: paired)

        // Bumble's own Passkey Entry between two of its devices, in the same run.
        let between = lab.command("connect-pair \(lab.addresses[1]) read", until: "result", timeout: 30)
        #expect((between?["paired"] as? NSNumber)?.boolValue == true, "\(String(describing: between))")
        print("pairing (LE SC Passkey Entry, responder displays): attune read with Bumble's peripheral, "
              + "pairing start → keys on Bumble's clock \(ours.map { "\($0) ms" } ?? "?"); "
              + "Bumble central with Bumble peripheral: \(between?["pairing_ms"] ?? "?") ms")
    }

    @Test("read with a wrong --passkey fails with Confirm Value Failed, and the link never encrypts",
          .timeLimit(.minutes(20)))
    func readWithWrongPasskey() async throws {
        let lab = try await BumbleLab.start(arguments: Self.passkeyLab)
        defer { lab.stop() }
        let handle = try #require(lab.handles["protected"])
        let run = try await AttuneProcess.run(["read", lab.address, String(format: "0x%04x", handle), "--random",
                                               "--passkey", "111111", "--transport", lab.transport], timeout: 90)
        #expect(run.status == 1, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("Confirm Value Failed") || run.stderr.contains("Passkey Entry Failed"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        let failure = lab.waitFor("pairing_failure", timeout: 5) { _ in true }
        #expect(failure != nil, "Bumble saw the pairing fail")
        // Ended first, so the search for an event that must not be there stops at the end
        // of the lab's output instead of waiting out its lifetime.
        lab.stop()
        #expect(lab.waitFor("encryption", timeout: 1) { ($0["encrypted"] as? NSNumber)?.boolValue == true } == nil,
                "the link never encrypted")
    }

    @Test("read --no-pair never pairs: the ATT security error, and no SMP at all", .timeLimit(.minutes(20)))
    func readWithoutPairing() async throws {
        let lab = try await BumbleLab.start(arguments: Self.passkeyLab)
        defer { lab.stop() }
        let handle = try #require(lab.handles["protected"])
        let run = try await AttuneProcess.run(["read", lab.address, String(format: "0x%04x", handle), "--random",
                                               "--no-pair", "--transport", lab.transport], timeout: 90)
        #expect(run.status == 1, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("Insufficient Encryption"), "\(run.stderr)")
        #expect(run.stderr.contains("automatic pairing is off"), "\(run.stderr)")
        lab.stop()   // the rest of its output, up to its end
        #expect(lab.waitFor("pairing_start", timeout: 1) { _ in true } == nil, "no pairing was started")
    }

    @Test("read needing a passkey with no terminal on stdin fails at once with an error naming --passkey",
          .timeLimit(.minutes(20)))
    func readWithoutTerminal() async throws {
        let lab = try await BumbleLab.start(arguments: Self.passkeyLab)
        defer { lab.stop() }
        let handle = try #require(lab.handles["protected"])
        let started = ContinuousClock.now
        let run = try await AttuneProcess.run(["read", lab.address, String(format: "0x%04x", handle), "--random",
                                               "--transport", lab.transport], timeout: 90)
        #expect(run.status == 1, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("--passkey"), "\(run.stderr)")
        #expect(run.stderr.contains("Passkey Entry Failed"), "\(run.stderr)")
        #expect(ContinuousClock.now - started < .seconds(30), "refused at once, not at the SMP timeout")
    }

    /// Milliseconds between two lab events, on the lab's clock (`t`).
    static func milliseconds(from start: [String: Any]?, to end: [String: Any]?) -> Int? {
        guard let a = (start?["t"] as? NSNumber)?.doubleValue, let b = (end?["t"] as? NSNumber)?.doubleValue else { return nil }
        return Int(((b - a) * 1000).rounded())
    }
}

extension BumbleCLITests {
    @Test("read after Just Works (--io none) of the value needing an authenticated key: Insufficient Authentication",
          .timeLimit(.minutes(20)))
    func readJustWorksIsNotEnough() async throws {
        let lab = try await BumbleLab.start(arguments: Self.passkeyLab)
        defer { lab.stop() }
        let handle = try #require(lab.handles["protected"])
        let run = try await AttuneProcess.run(["read", lab.address, String(format: "0x%04x", handle), "--random",
                                               "--io", "none", "--transport", lab.transport], timeout: 90)
        #expect(run.status == 1, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("Insufficient Authentication"), "\(run.stderr)")
        // Bumble's report can trail the command by seconds when the machine is loaded
        // (a guest and other labs beside it): 5 s once missed it.
        let paired = lab.waitFor("paired", timeout: 30) { _ in true }
        #expect((paired?["authenticated"] as? NSNumber)?.boolValue == false, "Bumble paired Just Works: \(String(describing: paired))")
    }
}

extension BumbleCLITests {
    @Test("attune pair --passkey N --json: authenticated LE Secure Connections, 16-byte key, the time it took",
          .timeLimit(.minutes(20)))
    func pairWithPasskey() async throws {
        let lab = try await BumbleLab.start(arguments: Self.passkeyLab)
        defer { lab.stop() }
        let run = try await AttuneProcess.run(["pair", lab.address, "--random", "--passkey", Self.passkey, "--json",
                                               "--transport", lab.transport], timeout: 90)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let result = try #require(run.stdout.jsonObject, "stdout: \(run.stdout)")
        #expect(result["authenticated"] as? Bool == true)
        #expect(result["secureConnections"] as? Bool == true)
        #expect(result["keySize"] as? Int == 16)
        #expect((result["milliseconds"] as? Int).map { $0 >= 0 } == true)
        print("attune pair (LE SC Passkey Entry, Bumble displays): \(result["milliseconds"] ?? "?") ms")
    }

    /// `attune serve --passkey N` with a value whose access is `authenticated`: a Bumble
    /// central that has not paired gets Insufficient Authentication; once it pairs,
    /// typing the N we display, it reads the value.
    @Test("serve --passkey N: an authenticated-only value needs Passkey Entry with N", .timeLimit(.minutes(20)))
    func servePasskeyProtects() async throws {
        let lab = try await BumbleLab.start(role: "central", arguments: ["--io", "keyboard", "--mitm", "--passkey", "97531"])
        defer { lab.stop() }
        let database = AttuneProcess.temporaryFile(".json")
        defer { try? FileManager.default.removeItem(atPath: database) }
        try """
            {"services": [{"uuid": "7a7e0020-5d4c-4f8e-9a64-0c3f1e2b6a10", "characteristics": [
              {"uuid": "7a7e0021-5d4c-4f8e-9a64-0c3f1e2b6a10", "properties": ["read"], "value_hex": "617574686f6e6c79",
               "access": {"read": "authenticated"}}]}]}
            """.write(toFile: database, atomically: true, encoding: .utf8)
        let transport = lab.transport
        // The lab's answers, as lines: JSON objects are not Sendable.
        let (unpairedLine, pairedLine, typedLine) = try await offPool { () throws -> (String, String, String) in
            let serve = Process()
            serve.executableURL = AttuneProcess.executable
            serve.arguments = ["serve", database, "--name", "AP", "--seconds", "60", "--passkey", "97531",
                               "--transport", transport]
            serve.standardOutput = FileHandle.nullDevice
            serve.standardError = FileHandle.nullDevice
            try serve.run()
            defer {
                serve.terminate()
                serve.waitUntilExit()
            }
            // connect-read and connect-pair scan for the name, so they wait for serve's advertising.
            let unpaired = lab.command("connect-read AP", until: "result", timeout: 60)
            let paired = lab.command("connect-pair AP read", until: "result", timeout: 60)
            let typed = lab.waitFor("passkey_entered", timeout: 5) { _ in true }
            func line(_ object: [String: Any]?) -> String {
                guard let object, let data = try? JSONSerialization.data(withJSONObject: object) else { return "" }
                return String(decoding: data, as: UTF8.self)
            }
            return (line(unpaired), line(paired), line(typed))
        }
        let (unpaired, paired, typed) = (unpairedLine.jsonObject, pairedLine.jsonObject, typedLine.jsonObject)
        #expect((unpaired?["att_error"] as? NSNumber)?.intValue == 0x05, "\(String(describing: unpaired))")
        #expect((paired?["paired"] as? NSNumber)?.boolValue == true, "\(String(describing: paired))")
        #expect((paired?["read"] as? [String]) == ["617574686f6e6c79"], "\(String(describing: paired))")
        #expect((typed?["number"] as? NSNumber)?.intValue == 97_531)
    }
}
