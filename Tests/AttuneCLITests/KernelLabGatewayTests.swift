import Foundation
import Testing

/// `attune gateway` on real kernel Bluetooth: Scripts/kernel-lab.sh boots Debian's kernel in
/// QEMU with btvirt's hci0 and hci1 and runs Scripts/kernel-lab-gateway.sh there: Debian's
/// mosquitto in the guest, `attune serve` on hci1, the gateway on hci0 over the kernel
/// transport. Skipped, with the reason, only when QEMU cannot run.
@Suite("attune gateway in the kernel lab", .serialized, .enabled(if: KernelLabCLI.canRun, "QEMU cannot run here (Scripts/kernel-lab.sh --check)"))
struct KernelLabGatewayTests {
    // The limit covers the wait for the guest lock too (one guest at a time on the machine).
    @Test(.timeLimit(.minutes(20)))
    func gatewayOnHci0AgainstServeOnHci1WithMosquittoInTheGuest() async throws {
        let root = AttuneProcess.packageRoot.path
        let run = try await KernelLabCLI.runOffPool([root + "/Scripts/kernel-lab-gateway.sh", AttuneProcess.executable.path],
                                                    timeout: 480)
        print(run.output)
        #expect(run.status == 0, "exit status \(run.status)")
        for check in ["mosquitto is in the guest", "mosquitto listens in the guest", "gateway --check accepts the config",
                      "the gateway says online", "the device is online over hci0", "notified values arrive through mosquitto",
                      "the read value is published", "set: the result says ok", "set: serve saw the bytes written",
                      "--explain shows the live link", "SIGTERM exits 143", "SIGTERM published the device offline",
                      "SIGTERM published the gateway offline"] {
            #expect(run.output.contains("PASS \(check)"), "no PASS for \(check)")
        }
        #expect(run.output.contains("ALL PASSED"))
    }
}
