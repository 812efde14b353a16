import ControllerTestSupport
import Foundation
import Testing

/// `attune serve --capture` over the userland host (H4 on TCP) against a Bumble central:
/// the recording is advertised once the host has initialised its controller, as plain
/// `serve` does (it used to advertise at once and fail with "the controller is still
/// initialising"), and Bumble's judge connects to it and exchanges the MTU.
@Suite("attune serve --capture over H4 against Bumble", .serialized,
       .enabled(if: BumbleLab.pythonAvailable, "python3 is missing"))
struct BumbleServeCaptureTests {
    struct Run: Sendable {
        var serving: String?
        var stderr: String
        var cells: [String: Bool]
        var events: [String]
    }

    @Test(.timeLimit(.minutes(20)))
    func aBumbleCentralConnectsToTheRecording() async throws {
        let lab = try await BumbleLab.start(role: "central")
        defer { lab.stop() }
        let fixture = AttuneProcess.packageRoot.appendingPathComponent("Fixtures/captures/kernel/bluez_hr_mtu517.btsnoop").path
        let transport = lab.transport
        let run = try await offPool { () throws -> Run in
            let serve = Process()
            serve.executableURL = AttuneProcess.executable
            serve.arguments = ["serve", "--capture", fixture, "--name", "AC", "--seconds", String(hangGuard.components.seconds), "--json",
                               "--transport", transport]
            serve.environment = AttuneProcess.privateStoreEnvironment()
            let events = Pipe(), status = Pipe()
            serve.standardOutput = events
            serve.standardError = status
            try serve.run()
            // The "serving …" status line is the event: the recording is advertised. An
            // end of the output before it is serve failing.
            var text = Data()
            var serving: String?
            while serving == nil {
                let chunk = status.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text.append(chunk)
                serving = String(decoding: text, as: UTF8.self).split(separator: "\n")
                    .first { $0.hasPrefix("serving ") }.map(String.init)
            }
            var cells: [String: Bool] = [:]
            if serving != nil {
                let result = lab.command("judge AC", until: "result", timeout: 300)
                cells = (result?["cells"] as? [String: [String: Any]])?.mapValues { $0["ok"] as? Bool == true } ?? [:]
            }
            if serve.isRunning { serve.terminate() }
            serve.waitUntilExit()
            text.append(status.fileHandleForReading.readDataToEndOfFile())
            let printed = String(decoding: events.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            return Run(serving: serving, stderr: String(decoding: text, as: UTF8.self), cells: cells,
                       events: printed.split(separator: "\n").compactMap { String($0).jsonObject?["event"] as? String })
        }
        #expect(run.serving != nil, "serve did not start: \(run.stderr)")
        #expect(!run.stderr.contains("still initialising"), "\(run.stderr)")
        #expect(run.cells["connect"] == true, "cells: \(run.cells)")
        #expect(run.cells["mtu"] == true, "cells: \(run.cells)")
        #expect(run.events.contains("connected"), "events: \(run.events)")
    }
}
