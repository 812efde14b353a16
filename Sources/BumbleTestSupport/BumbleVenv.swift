import Foundation
import Synchronization

/// The Bumble venv the interop labs run in (Scripts/interop/.venv). Scripts/setup.sh makes
/// it; test support only checks for it, so pip never runs beside timing-sensitive tests.
public enum BumbleVenv {
    public struct Missing: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// The repository this file is in (Sources/BumbleTestSupport/ is two levels down).
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The folder of lab.py, gateway_lab.py and the venv.
    public static let interopDirectory = repositoryRoot.appendingPathComponent("Scripts/interop")
    public static var python: URL { interopDirectory.appendingPathComponent(".venv/bin/python") }

    private static let checked = Mutex<Result<Void, Missing>?>(nil)

    /// Throws, saying to run Scripts/setup.sh, unless the pinned Bumble is in the venv.
    /// `venv` checks another folder instead (the test of that message); the answer for
    /// the project's own venv is kept for the process.
    public static func check(venv: String? = nil) throws {
        guard let venv else {
            return try checked.withLock { result in
                if result == nil { result = run(venv: nil) }
                return try result!.get()
            }
        }
        try run(venv: venv).get()
    }

    private static func run(venv: String?) -> Result<Void, Missing> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [interopDirectory.appendingPathComponent("setup.sh").path, "--check"]
        if let venv {
            var environment = ProcessInfo.processInfo.environment
            environment["ATTUNE_INTEROP_VENV"] = venv
            process.environment = environment
        }
        // A file, not a pipe: a pipe's end reaches EOF only when every process holding it
        // has closed it, and a child another test spawns meanwhile may inherit it.
        let errorPath = FileManager.default.temporaryDirectory.appendingPathComponent("attune-venv-check-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: errorPath.path, contents: nil),
              let errors = try? FileHandle(forWritingTo: errorPath) else {
            return .failure(Missing(description: "cannot create \(errorPath.path) for the venv check"))
        }
        defer {
            try? errors.close()
            try? FileManager.default.removeItem(at: errorPath)
        }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        do { try process.run() } catch {
            return .failure(Missing(description: "cannot run Scripts/interop/setup.sh --check: \(error); run Scripts/setup.sh"))
        }
        process.waitUntilExit()
        let text = (try? String(contentsOf: errorPath, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            return .failure(Missing(description: text.isEmpty
                ? "the Bumble venv is not ready (setup.sh --check exited \(process.terminationStatus)): run Scripts/setup.sh"
                : text.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        return .success(())
    }
}
