import Foundation
import Testing

/// `attune serve --capture FILE`: the recorded peripheral served over the memory
/// transport to the built-in central, which reads and subscribes to everything.
@Suite("attune serve --capture")
struct ServeCaptureTests {
    static let fixture = AttuneProcess.packageRoot.appendingPathComponent(
        "Fixtures/captures/kernel/bluez_hr_mtu517.btsnoop").path

    /// The Heart Rate Measurement values btgatt-server notified after the client
    /// subscribed (records 361…391, mostly a second apart, the one at 385 an
    /// indication), as `attune decode` shows them.
    static let capturedValues = ["0e800000", "067a", "066e", "0667", "0679", "065b", "067a", "0681", "065c", "0679"]

    @Test func theRecordingsPushesReachTheCentralAtTheirPace() async throws {
        let speed = 20.0
        let run = try await AttuneProcess.run(["serve", "--capture", Self.fixture, "--speed", "\(speed)", "--json",
                                               "--transport", "memory"], timeout: 60)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let events = run.stdoutLines.compactMap(\.jsonObject)
        let pushed = events.filter { $0["event"] as? String == "pushed" }
        #expect(pushed.compactMap { $0["value"] as? String } == Self.capturedValues, "\(run.stdout)")
        #expect(pushed.compactMap { $0["handle"] as? Int }.allSatisfy { $0 == 0x000D })
        #expect(pushed.compactMap { $0["record"] as? Int }.first == 361)
        #expect(pushed.filter { $0["captured_indication"] as? Bool == true }.compactMap { $0["record"] as? Int } == [385])
        #expect(run.stderr.contains("test central: 10 of 10 pushes received"), "stderr: \(run.stderr)")
        // Never early: the last value came 8.013 s after the client subscribed, so at
        // 20× it goes out at least 400 ms after our central subscribes, less a margin for
        // the printer seeing the subscription after the pacing began; lateness under load
        // is allowed (the library test checks the pace exactly, on a clock of its own).
        let subscribed = try #require(events.first {
            $0["event"] as? String == "subscription" && $0["handle"] as? Int == 0x000D
        }?["ms"] as? Int)
        let last = try #require(pushed.last?["ms"] as? Int)
        #expect(Double(last - subscribed) >= 8_013 / speed - 25, "subscribed at \(subscribed) ms, last push at \(last) ms")
        #expect(events.contains { $0["event"] as? String == "subscription" && $0["handle"] as? Int == 0x000D })
    }

    @Test(arguments: [["--speed", "0"], ["--speed", "nan"], ["--speed", "1e9"], ["--notify", "100"], ["extra.json"]])
    func badCombinationsAreUsageErrors(_ extra: [String]) async throws {
        let run = try await AttuneProcess.run(["serve", "--capture", Self.fixture, "--transport", "memory"] + extra, timeout: 30)
        #expect(run.status == 2, "stderr: \(run.stderr)")
    }

    @Test func aConnectionTheCaptureLacksFailsWithTheReason() async throws {
        let run = try await AttuneProcess.run(["serve", "--capture", Self.fixture, "--conn", "0x0999", "--transport", "memory"],
                                              timeout: 30)
        #expect(run.status == 1)
        #expect(run.stderr.contains("no ATT conversation to serve on connection 0x999"), "stderr: \(run.stderr)")
    }

    @Test func speedWithoutACaptureIsAUsageError() async throws {
        let run = try await AttuneProcess.run(["serve", "x.json", "--speed", "2", "--transport", "memory"], timeout: 30)
        #expect(run.status == 2, "stderr: \(run.stderr)")
    }
}
