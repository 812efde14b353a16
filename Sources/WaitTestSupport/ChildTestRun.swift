import Foundation

/// One test of this test binary run again in a child process of its own, for checks that
/// read the whole process (its threads, its RSS) or that would starve the suites beside
/// it (spinning the cooperative pool): in the child nothing else runs. The child finds
/// `marker` set to "1" in its environment (``isChildTestRun(_:)``) and does the work;
/// the parent reads its verdict from the exit status.
public struct ChildTestRun: Sendable {
    /// The child's exit status: 0 when the test passed.
    public var status: Int32
    /// Everything it printed.
    public var output: String

    /// Whether the test ran: a filter that matched nothing also exits 0.
    public var ranOneTest: Bool { output.contains("Test run with 1 test") }

    /// Runs the tests of this binary that `filter` names, in a child with `marker` set.
    public static func run(filter: String, marker: String) async throws -> ChildTestRun {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["--testing-library", "swift-testing", "--filter", filter]
        child.environment = ProcessInfo.processInfo.environment.merging([marker: "1"]) { $1 }
        // A file, not a pipe: nothing blocks on a full pipe while we wait.
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("attune-child-test-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        child.standardOutput = handle
        child.standardError = handle
        try child.run()
        let status = try await offPool {
            child.waitUntilExit()
            return child.terminationStatus
        }
        try? handle.close()
        return ChildTestRun(status: status, output: (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }
}

/// Whether this process is the child a ``ChildTestRun`` started with `marker`.
public func isChildTestRun(_ marker: String) -> Bool {
    ProcessInfo.processInfo.environment[marker] == "1"
}
