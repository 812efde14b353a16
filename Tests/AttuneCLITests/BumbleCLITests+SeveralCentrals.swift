import ControllerTestSupport
import Foundation
import Testing

extension BumbleCLITests {
    /// One `attune serve` on the userland host holds three Bumble centrals at once, each
    /// with its own MTU and subscription, and takes a new central after one leaves. Each
    /// connection needs connectable advertising, which the controller stops at every
    /// connection: the old serve advertised once and the second connect timed out.
    @Test(.timeLimit(.minutes(20)))
    func serveHoldsThreeBumbleCentralsAtOnce() async throws {
        let lab = try await BumbleLab.start(role: "central", devices: 3)
        defer { lab.stop() }
        let transport = lab.transport
        let snoop = FileManager.default.temporaryDirectory
            .appendingPathComponent("attune-serve-centrals-\(ProcessInfo.processInfo.processIdentifier).btsnoop")
        defer { try? FileManager.default.removeItem(at: snoop) }
        let outcome = try await offPool { () throws -> Outcome in
            let serve = Process()
            serve.executableURL = AttuneProcess.executable
            serve.arguments = ["serve", "Fixtures/databases/interop.json", "--name", "AS", "--seconds", "90",
                               "--notify", "100", "--json", "--transport", transport, "--snoop", snoop.path]
            serve.currentDirectoryURL = AttuneProcess.packageRoot
            serve.environment = AttuneProcess.privateStoreEnvironment()
            let events = Pipe()
            serve.standardOutput = events
            serve.standardError = FileHandle.nullDevice
            try serve.run()
            defer { if serve.isRunning { serve.terminate() } }
            var attached: [[String: Any]] = []
            var values: [[String: Any]] = []
            // Two, then three at once; then the first leaves and a new central takes its place.
            for (device, mtu) in [(0, 23), (1, 100), (2, 247)] {
                attached.append(lab.command("attach \(device) AS \(mtu)", until: "result", timeout: 30) ?? [:])
            }
            for device in 0..<3 {
                values.append(lab.waitFor("value", timeout: 15) { $0["device"] as? Int == device } ?? [:])
            }
            attached.append(lab.command("detach 0", until: "result", timeout: 10) ?? [:])
            attached.append(lab.command("attach 0 AS 23", until: "result", timeout: 30) ?? [:])
            values.append(lab.waitFor("value", timeout: 15) { $0["device"] as? Int == 0 } ?? [:])
            serve.terminate()
            serve.waitUntilExit()
            let printed = String(decoding: events.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            return Outcome(
                failures: attached.enumerated().compactMap { $1["ok"] as? Bool == true ? nil : "step \($0): \($1)" },
                mtus: attached.prefix(3).map { $0["mtu"] as? Int },
                notified: values.map { $0["device"] != nil },
                connected: printed.split(separator: "\n").compactMap { String($0).jsonObject }
                    .filter { $0["event"] as? String == "connected" }.count,
                connectMilliseconds: attached.compactMap { $0["connect_ms"] as? Double })
        }
        #expect(outcome.failures.isEmpty, "\(outcome.failures)")
        #expect(outcome.mtus == [23, 100, 247], "each central keeps its own MTU")
        #expect(outcome.notified == [true, true, true, true], "every central, the new one too, got notifications")
        #expect(outcome.connected == 4)
        print("serve held 3 Bumble centrals at once; connect times (ms): \(outcome.connectMilliseconds)")
    }

    struct Outcome: Sendable {
        var failures: [String]
        var mtus: [Int?]
        var notified: [Bool]
        var connected: Int
        var connectMilliseconds: [Double]
    }
}
