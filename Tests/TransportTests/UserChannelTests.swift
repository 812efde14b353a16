import Capture
import Foundation
import InteropTestSupport
import Testing
import WaitTestSupport

/// The HCI user channel (`user:hciN`) in the kernel lab: a QEMU guest with Debian's kernel
/// and two virtual controllers (btvirt). The kernel's own host advertises on hci0; our
/// userland host takes hci1 exclusively through HCI_CHANNEL_USER and scans.
@Suite(.serialized, .enabled(if: UserChannelLab.available, "the kernel lab (Scripts/kernel-lab.sh) cannot run QEMU here"))
struct UserChannelTests {
    static let root = InteropLab.repositoryRoot
    static let labScript = UserChannelLab.script

    static var attuneBinary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("attune").path
    }


    /// Runs a script in the lab on a thread of its own, so the VM's half minute does not
    /// hold one of the cooperative pool's threads.
    static func runLab(_ script: String) async throws -> (Int32, String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/bin/bash")
                process.arguments = [labScript, "/bin/bash", script]
                process.environment = ProcessInfo.processInfo.environment.merging(["KERNEL_LAB_TIMEOUT": String(hangGuard.components.seconds)]) { $1 }
                let output = Pipe()
                process.standardOutput = output
                process.standardError = FileHandle.nullDevice
                do {
                    try process.run()
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, text))
            }
        }
    }

    @Test("user:hci1 initialises, scans and finds the kernel's advertiser on hci0; the capture reads back")
    func scanOverUserChannel() async throws {
        let binary = Self.attuneBinary
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build the tool first: swift build (\(binary))")
        // The project folder is shared read-write with the guest: script and capture go there.
        let work = Self.root.appendingPathComponent(".build/user-channel-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let capture = work.appendingPathComponent("user-hci1.btsnoop").path
        let script = work.appendingPathComponent("guest.sh").path
        try """
            #!/bin/bash
            # hci0 stays with the kernel and advertises; hci1 must be down for the user channel.
            echo | btmgmt --index 0 name AttuneKernel >/dev/null 2>&1
            echo | btmgmt --index 0 connectable on >/dev/null 2>&1
            echo | btmgmt --index 0 advertising on >/dev/null 2>&1
            echo | btmgmt --index 1 power off >/dev/null 2>&1
            hciconfig hci1 down
            # A guard against a hang, not a bound on speed: the guest is emulated (TCG), and on a
            # loaded host a 3 s scan and its close took more than 30 s of guest time.
            exec timeout 300 '\(binary)' scan --controller user:hci1 --seconds 3 --json --snoop '\(capture)'
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let (status, text) = try await Self.runLab(script)
        #expect(status == 0, "guest output: \(text)")
        let lines = text.split(separator: "\n").filter { $0.hasPrefix("{") }
        let seen = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(seen.contains { $0["address_type"] as? String == "public" && ($0["name"] as? String)?.hasPrefix("AttuneKern") == true },
                "advertisers seen: \(lines)")

        var reader = try CaptureReader(path: capture)
        let first = try #require(try reader.next())
        #expect(first.packetType == .command && first.direction == .sent && Array(first.payload) == [0x03, 0x0C, 0x00],
                "the capture starts with our HCI_Reset")
    }
}

/// Whether the kernel lab can run here: false only when `--check` says QEMU cannot run
/// (status 1). Not installed or not prepared, the tests run and fail saying to run
/// Scripts/setup.sh.
enum UserChannelLab {
    static let script = InteropLab.repositoryRoot.appendingPathComponent("Scripts/kernel-lab.sh").path

    static let available: Bool = {
        let labScript = script
        guard FileManager.default.isExecutableFile(atPath: "/bin/bash"),
              FileManager.default.fileExists(atPath: labScript) else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [labScript, "--check"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus != 1
    }()
}
