import Foundation

/// The built `attune` executable, run as a user runs it.
struct AttuneProcess {
    var status: Int32
    var stdout: String
    var stderr: String

    var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }

    /// The executable beside this test bundle (`swift test` builds every product before
    /// the tests run), else the package's default debug build folder.
    static var executable: URL {
        let bundleDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let beside = bundleDirectory.appendingPathComponent("attune")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return packageRoot.appendingPathComponent(".build/debug/attune")
    }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Runs `attune ARGS`, killing it after `timeout` seconds so a hang fails the test
    /// instead of stalling the suite. The waiting happens on a thread of its own: the
    /// concurrency pool has a thread per core, and tests blocking it starve the rest of
    /// the suite.
    static func run(_ arguments: [String], timeout: Double = 120) async throws -> AttuneProcess {
        try await offPool { try runBlocking(arguments, timeout: timeout) }
    }

    static func runBlocking(_ arguments: [String], timeout: Double) throws -> AttuneProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
        // Files, not pipes: nothing can block on a full pipe while we wait.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("attune-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("stdout"), err = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                process.waitUntilExit()
                throw TimedOut(arguments: arguments, seconds: timeout)
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return AttuneProcess(status: process.terminationStatus,
                             stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                             stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }

    struct TimedOut: Error, CustomStringConvertible {
        var arguments: [String]
        var seconds: Double
        var description: String { "attune \(arguments.joined(separator: " ")) ran longer than \(seconds) s" }
    }

    /// A fresh path in the temporary directory.
    static func temporaryFile(_ suffix: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("attune-\(UUID().uuidString)\(suffix)").path
    }
}

/// Runs blocking work (waiting for processes, reading pipes) on a new thread rather than
/// on the cooperative pool.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

extension String {
    /// The object of one JSON line.
    var jsonObject: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(utf8))) as? [String: Any]
    }
}
