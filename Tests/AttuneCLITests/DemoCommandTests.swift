import Foundation
import Testing

@Suite("attune demo")
struct DemoCommandTests {
    @Test(.timeLimit(.minutes(10)))
    func demoCompletesAndVerifiesEverything() async throws {
        let run = try await AttuneProcess.run(["demo", "--seconds", "1"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let out = run.stdout
        #expect(out.contains("found \"Attune Demo\" C0:00:00:00:00:01"))
        #expect(out.contains("connected  ATT_MTU 185"))
        // The tree: services, characteristics with properties and handles, descriptors.
        #expect(out.contains("service 0x0014..0x0019  180D Heart Rate"))
        #expect(out.contains("  characteristic 0x0016  2A37 Heart Rate Measurement  [notify]  declaration 0x0015"))
        #expect(out.contains("    descriptor 0x0017  2902 Client Characteristic Configuration"))
        #expect(out.contains("300 bytes") && out.contains("long read: Read Request + 1 Read Blob  verified"))
        #expect(out.contains("512 bytes (long write: 3 Prepare Write + Execute Write), read back 512 bytes: verified"))
        #expect(out.contains("notification  0x0016  2A37 Heart Rate Measurement"))
        #expect(out.contains("indication   0x0028"))
        #expect(run.stdoutLines.last?.hasSuffix("checks passed") == true)
        // Progress goes to stderr, never mixed into the data.
        #expect(run.stderr.contains("listening for 1 s"))
        #expect(!out.contains("listening for"))
    }

    @Test(.timeLimit(.minutes(10)))
    func jsonIsOneObjectPerLine() async throws {
        let run = try await AttuneProcess.run(["demo", "--seconds", "1", "--json", "--mtu", "23"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let events = run.stdoutLines.map { $0.jsonObject }
        #expect(events.allSatisfy { $0 != nil }, "every stdout line is a JSON object")
        let names = events.compactMap { $0?["event"] as? String }
        #expect(names.first == "found")
        #expect(names.contains("services") && names.contains("read") && names.contains("write"))
        #expect(names.contains("notification") && names.contains("indication"))
        #expect(names.suffix(2) == ["disconnected", "result"])
        #expect(events.first { $0?["event"] as? String == "connected" }??["mtu"] as? Int == 23)
        let result = events.last!!
        #expect(result["ok"] as? Bool == true)
        #expect((result["failures"] as? [Any])?.isEmpty == true)
    }

    @Test func badOptionsAreUsageErrors() async throws {
        for arguments in [["demo", "--bogus"], ["demo", "--seconds", "0"], ["demo", "--mtu", "22"], ["demo", "extra"]] {
            let run = try await AttuneProcess.run(arguments)
            #expect(run.status == 2, "attune \(arguments.joined(separator: " "))")
            #expect(run.stderr.contains("usage: attune demo"))
            #expect(run.stdout.isEmpty)
        }
    }
}
