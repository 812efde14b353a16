import BumbleTestSupport
import Foundation
import Glibc
import InteropTestSupport
import Testing

/// One-time preparation belongs to Scripts/setup.sh (issue 24): test support that finds the
/// Bumble venv, the kernel lab or BlueZ's peer tools missing fails saying to run it, and
/// makes nothing itself. Each case points the real script or check at an empty place.
@Suite("missing one-time setup fails and names Scripts/setup.sh")
struct SetupRequiredTests {
    /// A fresh folder holding a copy of Scripts/`script`, as a project that never ran
    /// setup would.
    static func bareProject(with script: String) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("attune-bare-\(UUID().uuidString)")
        let scripts = root.appendingPathComponent("Scripts")
        try FileManager.default.createDirectory(at: scripts, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: KernelLabRunner.packageRoot + "/Scripts/" + script,
                                         toPath: scripts.appendingPathComponent(script).path)
        return root
    }

    @Test("no Bumble venv: the interop lab fails saying to run Scripts/setup.sh, and creates no venv",
          .enabled(if: InteropLab.pythonAvailable, "python3 is missing: the Bumble check cannot run"))
    func bumbleVenvMissing() throws {
        let venv = FileManager.default.temporaryDirectory.appendingPathComponent("attune-no-venv-\(UUID().uuidString)").path
        let error = try #require(throws: BumbleVenv.Missing.self) { try BumbleVenv.check(venv: venv) }
        #expect(error.description.contains("run Scripts/setup.sh"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: venv), "the check made a venv")
    }

    @Test("an unprepared kernel lab: a run exits 125 saying to run Scripts/setup.sh, and prepares nothing")
    func kernelLabUnprepared() async throws {
        let root = try Self.bareProject(with: "kernel-lab.sh")
        defer { try? FileManager.default.removeItem(at: root) }
        let run = await KernelLabRunner.shell("bash \(KernelLabRunner.quote(root.path + "/Scripts/kernel-lab.sh")) true")
        #expect(run.status == 125, "\(run.output)")
        #expect(run.output.contains("run Scripts/setup.sh"), "\(run.output)")
        #expect(!FileManager.default.fileExists(atPath: root.path + "/.lab/kernel"), "the run prepared a kernel")
    }

    @Test("BlueZ's peer tools not built: --check exits 3 saying to run Scripts/setup.sh, and compiles nothing")
    func bluezPeerToolsMissing() async throws {
        let root = try Self.bareProject(with: "build-bluez-peer.sh")
        defer { try? FileManager.default.removeItem(at: root) }
        let run = await KernelLabRunner.shell("bash \(KernelLabRunner.quote(root.path + "/Scripts/build-bluez-peer.sh")) --check")
        #expect(run.status == 3, "\(run.output)")
        #expect(run.output.contains("run Scripts/setup.sh"), "\(run.output)")
        #expect(!FileManager.default.fileExists(atPath: root.path + "/.lab"), "the check started a build")
    }
}
