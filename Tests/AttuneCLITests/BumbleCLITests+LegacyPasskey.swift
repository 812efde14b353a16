import Foundation
import Testing

/// LE legacy Passkey Entry (c1/s1, Vol 3 Part H §2.3.5.3): Bumble pairs legacy only
/// (lab.py --legacy) and displays the passkey; `attune read --passkey N` types it and
/// reads the value Bumble serves only over an authenticated link.
extension BumbleCLITests {
    @Test("read --passkey N against a legacy-only Bumble: LE legacy Passkey Entry, then the authenticated value",
          .timeLimit(.minutes(20)))
    func readWithLegacyPasskey() async throws {
        let lab = try await BumbleLab.start(arguments: Self.passkeyLab + ["--legacy"])
        defer { lab.stop() }
        let handle = try #require(lab.handles["protected"])
        let run = try await AttuneProcess.run(["read", lab.address, String(format: "0x%04x", handle), "--random",
                                               "--passkey", Self.passkey, "--json", "--transport", lab.transport],
                                              timeout: 90)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdout.jsonObject?["value"] as? String == Self.protectedValue, "stdout: \(run.stdout)")
        let shown = lab.waitFor("passkey_displayed", timeout: 5) { _ in true }
        #expect((shown?["number"] as? NSNumber)?.intValue == 123_456, "Bumble displayed the passkey we typed")
        let paired = lab.waitFor("paired", timeout: 5) { _ in true }
        #expect((paired?["legacy"] as? NSNumber)?.boolValue == true, "legacy keys: \(String(describing: paired))")
        #expect((paired?["authenticated"] as? NSNumber)?.boolValue == true, "\(String(describing: paired))")
    }
}
