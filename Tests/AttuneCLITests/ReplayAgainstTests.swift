import BluetoothCore
import Foundation
import Testing

/// `attune replay FILE --as client --against ADDR`: the captured central's procedures run
/// by our central against a live peripheral; here the demo peripheral of the memory
/// transport, which is not the captured one (a Bumble lab peer), so most answers differ
/// and are shown beside the captured ones.
@Suite("attune replay --against")
struct ReplayAgainstTests {
    static let capture = AttuneProcess.packageRoot.appendingPathComponent(
        "Fixtures/captures/inproc_mtu185_central.btsnoop").path

    @Test func theCapturedProceduresRunAgainstTheDemoPeripheral() async throws {
        let run = try await AttuneProcess.run(["replay", Self.capture, "--as", "client", "--against", "C0:00:00:00:00:01",
                                               "--transport", "memory"], timeout: 60)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let lines = run.stdoutLines
        #expect(lines.first == "our central performing the captured client's procedures against C0:00:00:00:00:01")
        // Both peripherals answer Invalid Handle for a handle neither has.
        #expect(lines.contains { $0.hasPrefix("  Read 0x0fff: matched (") }, "\(run.stdout.prefix(3000))")
        #expect(lines.contains("  Exchange MTU (client rx mtu 185): not replayed (the connection exchanged its own MTU)"))
        // A divergence shows the captured server's answer beside the live one.
        let read = try #require(lines.firstIndex { $0.hasPrefix("  Read 0x0003: DIVERGED (") })
        #expect(lines[read + 1] == "    captured server: Read Response value 42756d626c654c616250656572  [0b42756d626c654c616250656572]")
        #expect(lines[read + 2] == "    captured: value 42756d626c654c616250656572")
        #expect(lines[read + 3] == "    live:     value \(hexString(Data("Attune Demo".utf8)))")
        // The battery level notifies: live data, a known cause.
        #expect(run.stdout.contains("why:      handle 0x0010 belongs to a characteristic that notifies or indicates"))
        let summary = try #require(lines.last)
        #expect(summary.contains(" matched, ") && summary.contains(" diverged (") && summary.contains(" live procedures in "),
                "\(summary)")
        #expect(summary.contains("mean ") && summary.contains("slowest "))
    }

    @Test(arguments: [["--as", "server", "--against", "C0:00:00:00:00:01"], ["--as", "client", "--against", "nonsense"],
                      ["--as", "client", "--transport", "memory"]])
    func badCombinationsAreUsageErrors(_ extra: [String]) async throws {
        let run = try await AttuneProcess.run(["replay", Self.capture] + extra, timeout: 30)
        #expect(run.status == 2, "stderr: \(run.stderr)")
    }
}
