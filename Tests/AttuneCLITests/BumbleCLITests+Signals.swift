import ControllerTestSupport
import Foundation
import Testing

extension BumbleCLITests {
    /// Ctrl-C during `subscribe` on the userland host: the command disconnects with HCI
    /// Disconnect reason 0x13, which Bumble sees as its link's end, and exits with 130.
    /// The old attune died at once, and Bumble kept the link until its supervision timeout.
    @Test(.timeLimit(.minutes(20)))
    func sigintDuringSubscribeDisconnectsWithReason0x13() async throws {
        let lab = try await BumbleLab.start()
        defer { lab.stop() }
        let handle = try #require(lab.handles["notify"])
        let (status, lines, disconnection) = try await offPool { () throws -> (Int32, Int, Int?) in
            let subscribe = Process()
            subscribe.executableURL = AttuneProcess.executable
            // More than Bumble sends (3): the command would wait for ever.
            subscribe.arguments = ["subscribe", lab.address, String(format: "0x%04x", handle), "--count", "100", "--random",
                                   "--transport", lab.transport]
            subscribe.currentDirectoryURL = AttuneProcess.packageRoot
            subscribe.environment = AttuneProcess.privateStoreEnvironment()
            let output = Pipe()
            subscribe.standardOutput = output
            subscribe.standardError = FileHandle.nullDevice
            try subscribe.run()
            defer { if subscribe.isRunning { subscribe.interrupt() } }
            // The three notifications Bumble sends on subscription, then Ctrl-C.
            var received = Data()
            while received.filter({ $0 == 0x0A }).count < 3 {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                received.append(chunk)
            }
            subscribe.interrupt()
            subscribe.waitUntilExit()
            let event = lab.waitFor("disconnected", timeout: 10) { _ in true }
            return (subscribe.terminationStatus, received.filter { $0 == 0x0A }.count, event?["reason"] as? Int)
        }
        #expect(lines == 3, "the notifications arrived before the signal")
        #expect(status == 130, "SIGINT exits with 128 + 2")
        #expect(disconnection == 0x13, "Bumble saw the link end with Remote User Terminated Connection")
    }
}
