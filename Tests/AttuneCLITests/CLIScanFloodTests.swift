import ControllerTestSupport
import Foundation
import Testing

/// The memory bound of `ScanFloodTests` (TransportTests), measured where nothing else
/// allocates: the built `attune scan` as a separate process, on each of its two paths,
/// under a street of distinct random addresses played by a ``FloodingController`` from
/// the moment it enables scanning. The bound is the child's own peak RSS (VmHWM, see
/// ``AttuneProcess/peakKilobytes``), 64 MB as in ``CLIFloodTests``: the in-process check
/// allowed 64 MB of growth of the whole test process, which the other tests running
/// beside it could exceed or hide. The device table (10,000 by default) and the reports
/// waiting in the host are bounded, so a peak past 64 MB means an unbounded queue again.
///
/// The supply of advertisers outlasts the scan, so the command is flooded until the test
/// interrupts it (SIGINT, as ^C) once it has printed ``interruptAfter`` lines: the scan
/// ends on its own progress, never on a time, however slowly a loaded machine runs it.
/// (Ending when the controller had written enough would not do: a child that lags drops
/// reports, counted but not printed, so what it printed would depend on its speed.)
/// The exactness checks (each device once, drops counted) stay in-process in
/// `ScanFloodTests`, which counts every report.
@Suite("attune scan under an advertiser flood", .serialized)
struct CLIScanFloodTests {
    /// Far more advertisers than the scan prints before its interrupt: the flood never
    /// runs out.
    static let advertisers = 1 << 22
    static let floodBase: UInt64 = 0xC1_0000_000000
    /// The device table's default limit (`ScanTable.defaultLimit`).
    static let tableLimit = 10_000
    /// Lines printed before the test interrupts the scan: three tables' worth, so the
    /// table is full and forgetting devices for most of the run.
    static let interruptAfter = 3 * tableLimit
    /// The exit status after SIGINT: 128 + 2, as for every command (`SignalTrap`).
    static let interruptedStatus: Int32 = 130

    /// The count `attune scan` ends with on stderr ("N advertisements").
    static func printed(_ run: AttuneProcess) -> Int? {
        run.stderr.split(separator: "\n").last { $0.hasSuffix(" advertisements") }
            .flatMap { CLIFloodTests.numbers(String($0)).first }
    }

    /// Runs `attune scan ARGS` against a controller that floods from scan enable.
    static func scanUnderFlood(scanResponse: Bool, label: String, _ arguments: (String) -> [String]) async throws {
        let controller = FloodingController()
        defer { controller.close() }
        controller.advertiseWhenScanning(advertisers, from: floodBase, scanResponse: scanResponse)
        controller.start()
        // A hang guard only: the scan ends on the interrupt.
        let run = try await AttuneProcess.run(["scan"] + arguments(controller.path), timeout: 300, discardStdout: true,
                                              interruptAfterLines: interruptAfter)
        let count = printed(run)
        print("\(label): exit \(run.status), peak RSS \(run.peakKilobytes) kB, \(controller.advertisersReported) "
              + "advertisers written, \(run.linesAtInterrupt.map(String.init) ?? "no") lines before the interrupt, "
              + "\(count.map(String.init) ?? "no count") printed")
        #expect(run.status == interruptedStatus, "stderr: \(run.stderr)")
        #expect(run.peakKilobytes < CLIFloodTests.limitKilobytes, "peak RSS \(run.peakKilobytes) kB")
        // The case under test: the flood went through the table and past its limit. The
        // scan prints one line per device it counts, and the interrupt went only once
        // `interruptAfter` lines were out, so the test's own count is the proof.
        let lines = try #require(run.linesAtInterrupt, "the scan ended before \(interruptAfter) lines; stderr: \(run.stderr)")
        #expect(lines >= interruptAfter && lines > tableLimit, "only \(lines) devices printed")
        // The scan's own count, when it says it: SignalTrap gives the clean stop 5 s, and
        // on a loaded machine stopping the scan behind the flood's queued reports can take
        // longer, when the process ends without it (as designed: a signal is never
        // ignored). When said, it counts every line printed.
        if let count { #expect(count >= lines, "the scan counted \(count), fewer than the \(lines) lines it printed") }
    }

    /// The child of `ScanFloodTests.centralScanUnderFlood`: `CentralManager.scan` over the
    /// userland host (`--transport`), non-connectable advertisers.
    @Test("scan --transport under a flood of random addresses: peak RSS under 64 MB", .timeLimit(.minutes(10)))
    func centralScanUnderFlood() async throws {
        try await Self.scanUnderFlood(scanResponse: false, label: "scan --transport flood") {
            ["--transport", "unix:" + $0, "--timeout", "0"]   // 0: until interrupted
        }
    }

    /// The child of `ScanFloodTests.hostScanUnderFlood`: the userland host and the CLI's
    /// filter (`--controller`), advertisers with scan responses.
    @Test("scan --controller under a flood of advertisers with scan responses: peak RSS under 64 MB",
          .timeLimit(.minutes(10)))
    func hostScanUnderFlood() async throws {
        try await Self.scanUnderFlood(scanResponse: true, label: "scan --controller flood") {
            // The longest --seconds (it has no 0): the interrupt ends the scan long before.
            ["--controller", "unix:" + $0, "--seconds", "86400"]
        }
    }
}
