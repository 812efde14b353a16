import Foundation
import Testing
import WaitTestSupport

/// Our userland host's Security Manager against the Linux kernel's SMP, in the kernel lab
/// (Scripts/kernel-lab.sh: Debian's kernel in QEMU with btvirt's hci0 and hci1). Our host
/// takes hci0 through the HCI user channel; the kernel keeps hci1, with our mgmt agent
/// answering for it and reporting its keys. Both roles run in one boot. Skipped only when
/// QEMU cannot run.
@Suite(.serialized, .enabled(if: KernelLabRunner.availability.ready, KernelLabRunner.availability.reason))
struct KernelLabPairingTests {
    @Test("our host pairs with the kernel's SMP as central (then reads an encrypted value) and as peripheral, Just Works and Passkey Entry")
    func userlandHostPairsWithTheKernelInBothRoles() async {
        let probe = KernelLabRunner.quote(KernelLabRunner.buildDirectory + "/KernelLabProbe")
        // hci0 must be down and unclaimed by mgmt for the user channel.
        let run = await KernelLabRunner.run(["sh", "-c", """
            echo | btmgmt --index 0 power off >/dev/null 2>&1
            hciconfig hci0 down
            # LE Secure Connections on the kernel's adapters (off by default on btvirt's).
            for i in 1 2; do echo | btmgmt --index $i sc on >/dev/null 2>&1; done
            \(probe) pairing
            """], environment: ["KERNEL_LAB_TIMEOUT": String(hangGuard.components.seconds), "KERNEL_LAB_CONTROLLERS": "3"])
        print(run.output)
        #expect(run.status == 0, "exit status \(run.status)")
        for check in ["pairing: kernel keys cleared", "pairing: hci1 bondable", "pairing: userland host on user:hci0",
                      "pairing central: connect user:hci0 → hci1", "pairing central: refused before pairing",
                      "pairing central: Just Works", "pairing central: read over the encrypted link",
                      "pairing central: kernel New Long Term Key",
                      "pairing peripheral: connect hci1 → user:hci0", "pairing peripheral: Just Works",
                      // The kernel pairs with itself through our agent: its passkey and comparison paths.
                      "kernel pairing Passkey Entry", "kernel pairing Numeric Comparison",
                      "pairing peripheral: kernel New Long Term Key", "pairing: Load Long Term Keys takes the key back",
                      "pairing: Unpair Device forgets the key", "pairing: Unpair Device again says Not Paired",
                      // Passkey Entry with a passkey both sides know: our PairingConfiguration(passkey:)
                      // displays it, the kernel's agent enters it; authenticated on both sides.
                      "pairing passkey: userland host on user:hci0",
                      "pairing central: Passkey Entry", "pairing central: kernel New Long Term Key (Passkey Entry)",
                      "pairing peripheral: Passkey Entry", "pairing peripheral: kernel New Long Term Key (Passkey Entry)"] {
            #expect(run.output.contains("PASS \(check)"), "no PASS for \(check)")
        }
        // The keys the kernel reported are typed and never printed.
        #expect(run.output.contains("unauthenticated P-256"), "Just Works with LE Secure Connections")
        #expect(run.output.contains("ms, authenticated P-256"), "passkey and comparison keys are authenticated")
        #expect(run.output.contains("value <redacted>"))
        #expect(run.output.contains("passkey entry → passkey(") && run.output.contains("numeric comparison"),
                "the agent answered passkey and comparison requests")
        #expect(!run.output.contains("FAIL"))
        #expect(run.output.contains("ALL PASSED"))
        for line in run.output.split(separator: "\n") where line.hasPrefix("PASS") && (line.contains("Just Works:") || line.contains("Passkey Entry:") || line.contains("kernel pairing")) {
            print("kernel-lab pairing time: \(line)")
        }
    }
}
