import ControllerTestSupport
import Foundation
import Testing

/// The memory bound of `H4FloodTests.subscribeUnderFlood` (TransportTests), measured
/// where nothing else allocates: the built `attune subscribe` as a separate process whose
/// reader stalls under a notification flood. Its stdout goes into a pipe that nobody
/// reads until the controller has written the 120,000 values the in-process test
/// floods, so the command's consumer blocks on its output as it would behind a stalled
/// `| tool`; the link then drops and counts values instead of queueing them.
///
/// The bound is the child's own peak RSS (VmHWM), 64 MB as in ``CLIFloodTests``: the
/// in-process check allowed 16 MB of growth of the whole test process, which the other
/// tests running beside it could exceed or hide, and a child's absolute peak includes
/// the executable at rest (about 34 MB: the short floods of ``CLIFloodTests`` peak
/// there), which growth left out. That leaves some 30 MB, which a queue per stalled value
/// would pass: the flood goes on until the reader is back and 20,000 values are taken.
/// The exactness checks (every value delivered or counted, each drop reported) stay
/// in-process in `subscribeUnderFlood`.
@Suite("attune subscribe with a stalled reader", .serialized)
struct CLIStalledSubscriberTests {
    @Test("subscribe under a notification flood, stdout stalled: drops counted, peak RSS under 64 MB",
          .timeLimit(.minutes(10)))
    func subscribeWithStalledReader() async throws {
        let stalledFor = 120_000
        let count = 20_000
        // Endless, so the values the command still waits for come once its reader is back.
        let controller = FloodingController(floodOnSubscribe: FloodingController.endless)
        defer { controller.close() }
        controller.start()
        let run = try await AttuneProcess.run(["subscribe", CLIFloodTests.address, "0x0012", "--random", "--count", "\(count)",
                                               "--transport", "unix:" + controller.path],
                                              timeout: 150, stdoutStalledUntil: { controller.notificationsWritten >= stalledFor })
        let summary = CLIFloodTests.line("subscribe:", in: run)
        print("stalled subscriber: exit \(run.status), peak RSS \(run.peakKilobytes) kB, "
              + "\(controller.notificationsWritten) notifications written, \(summary ?? "no summary")")
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.peakKilobytes < CLIFloodTests.limitKilobytes, "peak RSS \(run.peakKilobytes) kB")
        let figures = CLIFloodTests.numbers(try #require(summary, "stderr: \(run.stderr)"))
        try #require(figures.count >= 5, "\(summary ?? "")")
        #expect(figures[0] == count, "\(summary ?? "")")
        // The case under test: the stall cost values, and the command counted them.
        #expect(figures[1] > 0, "nothing lost while stalled: \(summary ?? "")")
    }
}
