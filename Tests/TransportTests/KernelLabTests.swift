import Foundation
import Glibc
import Testing

/// The kernel transport against real kernel Bluetooth: Scripts/kernel-lab.sh
/// boots Debian's kernel in QEMU with btvirt's hci0 and hci1 and runs the
/// host-built KernelLabProbe inside it. Skipped only when QEMU cannot run.
@Suite(.serialized, .enabled(if: KernelLab.availability.ready, KernelLab.availability.reason))
struct KernelLabTests {
    @Test func centralOnHci0AgainstPeripheralOnHci1() async throws {
        let probe = KernelLab.buildDirectory + "/KernelLabProbe"
        #expect(access(probe, X_OK) == 0, "KernelLabProbe is not built at \(probe)")
        let capture = KernelLab.packageRoot + "/.lab/probe-\(getpid()).btsnoop"
        defer { unlink(capture) }
        let run = await KernelLab.runOffPool([probe, "att", "200"], environment: ["KERNEL_LAB_BTMON": capture, "KERNEL_LAB_TIMEOUT": "90"])
        print(run.output)
        #expect(run.status == 0, "exit status \(run.status)")
        for check in ["list adapters", "manager state", "advertise on hci1", "scan on hci0", "connect hci0 → hci1",
                      "accepted peer address", "central peer address", "socket MTU", "BT_SECURITY get/set",
                      "exchange MTU", "read round trips", "connect timeout", "connect cancel", "peer closes"] {
            #expect(run.output.contains("PASS \(check)"), "no PASS for \(check)")
        }
        #expect(run.output.contains("ALL PASSED"))
        // btmon writes btsnoop: the 8-byte magic "btsnoop\0".
        let magic = KernelLab.readPrefix(capture, count: 8)
        #expect(magic == Array("btsnoop".utf8) + [0], "no btmon capture at \(capture)")
    }

    @Test func managerStateInsideTheVMIsPoweredOn() async {
        let run = await KernelLab.runOffPool([KernelLab.buildDirectory + "/KernelLabProbe", "state"])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("state: poweredOn"))
        #expect(run.output.contains("adapter: hci0 00:AA:01:00:00:00 up LE"))
        #expect(run.output.contains("adapter: hci1 00:AA:01:01:00:01 up LE"))
    }

    @Test func labReturnsTheCommandsExitCode() async {
        let run = await KernelLab.runOffPool(["sh", "-c", "echo inside; exit 7"])
        #expect(run.status == 7)
        #expect(run.output.contains("inside"))
    }

    @Test func labReports124OnTimeOut() async {
        let start = KernelLab.seconds()
        let run = await KernelLab.runOffPool(["sleep", "60"], environment: ["KERNEL_LAB_TIMEOUT": "2"])
        #expect(run.status == 124, "\(run.output)")
        #expect(KernelLab.seconds() - start < 45)
    }
}

/// Runs Scripts/kernel-lab.sh from the host.
enum KernelLab {
    static let packageRoot: String = {
        // <root>/Tests/TransportTests/KernelLabTests.swift
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    /// Where SwiftPM put this test bundle, and so the probe beside it.
    static let buildDirectory: String = {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return packageRoot + "/.build/debug" }
        let path = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var parts = path.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast()
        return parts.joined(separator: "/")
    }()

    static let availability: (ready: Bool, reason: Comment) = {
        guard access("/usr/bin/qemu-system-x86_64", X_OK) == 0 || getuid() == 0 else {
            return (false, "QEMU is not installed and the lab cannot install it without root")
        }
        let check = run(["--check"], setupOnly: true)
        if check.status != 0 {
            print("kernel lab unavailable: \(check.output)")
            return (false, "QEMU cannot run here: Scripts/kernel-lab.sh --check failed")
        }
        return (true, "")
    }()

    static func seconds() -> Double {
        Double(KernelEventLoopClock.now()) / 1e9
    }

    static func quote(_ argument: String) -> String {
        "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// ``run(_:environment:setupOnly:)`` on a thread of its own: a lab run takes a minute,
    /// and blocking one of the concurrency pool's few threads that long starves the
    /// in-process suites running beside it.
    static func runOffPool(_ arguments: [String], environment: [String: String] = [:]) async -> (status: Int32, output: String) {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: run(arguments, environment: environment)) }
        }
    }

    /// Runs the lab with `arguments`, capturing stdout and stderr together.
    static func run(_ arguments: [String], environment: [String: String] = [:], setupOnly: Bool = false) -> (status: Int32, output: String) {
        let assignments = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\(quote($0.value)) " }.joined()
        let command = "cd \(quote(packageRoot)) && \(assignments)Scripts/kernel-lab.sh "
            + arguments.map(quote).joined(separator: " ") + " 2>&1"
        guard let pipe = popen(command, "r") else { return (125, "popen failed") }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, pipe)
            if count <= 0 { break }
            output += buffer.prefix(count)
        }
        let status = pclose(pipe)
        let exitCode = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (exitCode, String(decoding: output, as: UTF8.self))
    }

    static func readPrefix(_ path: String, count: Int) -> [UInt8] {
        guard let file = fopen(path, "r") else { return [] }
        defer { fclose(file) }
        var bytes = [UInt8](repeating: 0, count: count)
        let read = fread(&bytes, 1, count, file)
        return Array(bytes.prefix(read))
    }
}

/// Monotonic nanoseconds without Foundation.
enum KernelEventLoopClock {
    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: Character(target), omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
