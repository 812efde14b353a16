import Capture
import Foundation
import HCI
import Testing

/// `attune serve --capture` ends when its --seconds run out, and serves a capture whose
/// client never discovered a CCCD its central needs.
@Suite("attune serve --capture: lifetime and CCCDs")
struct ServeCaptureLifetimeTests {
    /// A peripheral's capture: a Heart Rate service, the client subscribing by writing
    /// 0x0004, and one notification an hour later.
    static func writeLatePushCapture(to path: String) throws {
        var writer = try CaptureWriter(path: path, format: .btsnoop(.hciUART))
        var clock: Int64 = 1_750_000_000_000_000
        let handle: UInt16 = 0x0040
        func att(_ direction: CaptureDirection, _ pdu: [UInt8], after gap: Int64 = 1_000) throws {
            clock += gap
            for record in SynthesizedHCI.attPDU(pdu, handle: handle, direction: direction, at: clock) {
                try writer.write(record)
            }
        }
        clock += 1_000
        try writer.write(SynthesizedHCI.connectionComplete(handle: handle, isCentral: false, peerAddressType: 1,
                                                           peer: BluetoothAddress(0xC0, 0xFF, 0xEE, 0, 0, 1), at: clock))
        // The central's requests arrive (received); the peripheral's answers leave (sent).
        try att(.received, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28])            // primary services
        try att(.sent, [0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x0D, 0x18])          // Heart Rate 0x0001–0x0005
        try att(.received, [0x10, 0x06, 0x00, 0xFF, 0xFF, 0x00, 0x28])
        try att(.sent, [0x01, 0x10, 0x06, 0x00, 0x0A])                            // Attribute Not Found
        try att(.received, [0x08, 0x01, 0x00, 0x05, 0x00, 0x03, 0x28])            // characteristics
        try att(.sent, [0x09, 0x07, 0x02, 0x00, 0x10, 0x03, 0x00, 0x37, 0x2A])    // 0x0003 notifies
        try att(.received, [0x08, 0x03, 0x00, 0x05, 0x00, 0x03, 0x28])
        try att(.sent, [0x01, 0x08, 0x03, 0x00, 0x0A])
        try att(.received, [0x12, 0x04, 0x00, 0x01, 0x00])                        // subscribe
        try att(.sent, [0x13])
        try att(.sent, [0x1B, 0x03, 0x00, 0x06, 0x48], after: 3_600_000_000)     // an hour on
        clock += 1_000
        try writer.write(SynthesizedHCI.disconnectionComplete(handle: handle, reason: 0x13, at: clock))
        _ = try writer.finish()
    }

    /// The built-in central waits for the push timed an hour after its subscription;
    /// --seconds 2 ends the command all the same, with status 0. (The process ending is
    /// the event; the 5-minute limit only guards against a hang.)
    @Test func secondsEndTheServeThoughAPushIsTimedLater() async throws {
        let path = AttuneProcess.temporaryFile(".btsnoop")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.writeLatePushCapture(to: path)
        let started = ContinuousClock.now
        let run = try await AttuneProcess.run(["serve", "--capture", path, "--seconds", "2", "--json",
                                               "--transport", "memory"], timeout: 300)
        let took = ContinuousClock.now - started
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("and 1 pushes"), "stderr: \(run.stderr)")
        #expect(run.stdoutLines.compactMap(\.jsonObject).contains { $0["event"] as? String == "subscription" },
                "stdout: \(run.stdout)")
        #expect(took < .seconds(240), "serve ran \(took) for --seconds 2")
    }

    /// The unmodified fixture: Bumble's server indicates 0x001F (properties 0x22), and
    /// the captured client never discovered descriptors, so the capture shows no CCCD.
    /// The recording gets one at 0x0020, the service's last handle, and the built-in
    /// central subscribes to it.
    @Test func aCaptureWithoutTheCCCDIsServedAndSubscribed() async throws {
        let fixture = AttuneProcess.packageRoot.appendingPathComponent("Fixtures/captures/h4_rawcentral_bumble.btsnoop").path
        let run = try await AttuneProcess.run(["serve", "--capture", fixture, "--json", "--transport", "memory"], timeout: 300)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(!run.stderr.contains("Client Characteristic Configuration"), "stderr: \(run.stderr)")
        let subscriptions = run.stdoutLines.compactMap(\.jsonObject).filter { $0["event"] as? String == "subscription" }
        #expect(subscriptions.contains { $0["handle"] as? Int == 0x001F && $0["kind"] as? String == "indications" },
                "stdout: \(run.stdout)")
    }
}
