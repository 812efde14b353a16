import ControllerTestSupport
import Foundation
import Testing

/// The CLI on the kernel transport against real kernel Bluetooth: Scripts/kernel-lab.sh
/// boots Debian's kernel in QEMU with btvirt's hci0 and hci1 and runs
/// Scripts/kernel-lab-cli.sh there (`attune serve` on hci1; state, scan, discover, read, replay --against,
/// subscribe and write on hci0). Skipped, with the reason, only when QEMU cannot run.
@Suite("attune in the kernel lab", .serialized, .enabled(if: KernelLabCLI.canRun, "QEMU cannot run here (Scripts/kernel-lab.sh --check)"))
struct KernelLabCLITests {
    // The limits cover the wait for the guest lock too (Scripts/kernel-lab.sh runs one
    // guest at a time, and the other suites' guests may be ahead); the guest's own limit
    // is KERNEL_LAB_TIMEOUT.
    @Test(.timeLimit(.minutes(20)))
    func commandsOnHci0AgainstServeOnHci1() async throws {
        let root = AttuneProcess.packageRoot.path
        let run = try await KernelLabCLI.runOffPool([root + "/Scripts/kernel-lab-cli.sh", AttuneProcess.executable.path])
        print(run.output)
        #expect(run.status == 0, "exit status \(run.status)")
        for check in ["state is poweredOn", "scan finds the peripheral", "discover prints the tree", "read returns the value",
                      "subscribe prints three notifications", "serve notified the subscriber",
                      "write needing encryption fails with the ATT error", "write names the error",
                      "serve printed the read request", "serve saw the central connect",
                      "read --snoop capture decodes", "read --snoop capture holds the read",
                      "serve --snoop capture holds the read answered",
                      // Issue 15: a capture replayed against a live peripheral over the kernel transport.
                      "replay --against the live peer exits 0", "replay --against: the captured read matches the live one",
                      "replay --against: nothing diverged"] {
            #expect(run.output.contains("PASS \(check)"), "no PASS for \(check)")
        }
        #expect(run.output.contains("ALL PASSED"))
    }

    /// One `attune serve` on hci1 takes kernel centrals on hci0, hci2 and hci3, each after
    /// the last one left: connectable advertising resumes at every
    /// disconnection (the old serve advertised once). Not at once: btvirt gives every
    /// connection of one controller the same handle (see Scripts/kernel-lab-centrals.sh).
    @Test(.timeLimit(.minutes(20)))
    func serveOnHci1TakesANewCentralAfterEachLeaves() async throws {
        let root = AttuneProcess.packageRoot.path
        // A guest under TCG beside the whole suite: 38 s when idle, over 360 s when the
        // suite's Bumble labs and other guests load the machine.
        let run = try await KernelLabCLI.runOffPool([root + "/Scripts/kernel-lab-centrals.sh", AttuneProcess.executable.path],
                                                    controllers: 4, timeout: Int(hangGuard.components.seconds))
        print(run.output)
        #expect(run.status == 0, "exit status \(run.status)")
        for check in ["central hci0 got 5 notifications", "central hci2 got 5 notifications",
                      "central hci3 got 5 notifications", "serve saw three connections",
                      "serve saw three disconnections", "serve served three different centrals"] {
            #expect(run.output.contains("PASS \(check)"), "no PASS for \(check)")
        }
        #expect(run.output.contains("ALL PASSED"))
    }
}

enum KernelLabCLI {
    static var script: String { AttuneProcess.packageRoot.path + "/Scripts/kernel-lab.sh" }

    /// False only when `--check` says QEMU cannot run here (status 1): a lab not installed
    /// or not prepared runs its tests, which fail saying to run Scripts/setup.sh.
    static var canRun: Bool { (try? run(["--check"]).status) != 1 }

    static func runOffPool(_ arguments: [String], controllers: Int = 2,
                           timeout: Int = 150) async throws -> (status: Int32, output: String) {
        try await offPool { try run(arguments, controllers: controllers, timeout: timeout) }
    }

    static func run(_ arguments: [String], controllers: Int = 2, timeout: Int = 150) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = arguments
        process.currentDirectoryURL = AttuneProcess.packageRoot
        var environment = ProcessInfo.processInfo.environment
        environment["KERNEL_LAB_TIMEOUT"] = String(timeout)
        environment["KERNEL_LAB_CONTROLLERS"] = String(controllers)
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
