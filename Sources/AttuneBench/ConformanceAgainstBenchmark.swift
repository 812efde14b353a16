import Foundation

/// `conformance.against.memory`: the whole server suite (the GATT tests and the
/// robustness probes) run by `attune conformance --against` against our own server, the
/// demo peripheral over the memory radio, in tests per second: the best of five runs of
/// the command as a child process. The time includes starting the process and the demo
/// and connecting, as a user's run does; the number of tests comes from `--list`.
enum ConformanceAgainstBenchmark {
    static var all: [Benchmark] {
        [.custom("conformance.against.memory") { measure() }]
    }

    static func measure() -> BenchmarkResult {
        let attune = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("attune").path
        func failed(_ why: String) -> BenchmarkResult {
            BenchmarkResult(name: "", opsPerSecond: 0, allocationsPerOperation: 0, extra: [("error", .string(why))])
        }
        guard FileManager.default.isExecutableFile(atPath: attune) else {
            return failed("no attune beside attune-bench: build it (swift build -c release)")
        }
        guard let tests = listedTests(attune), tests > 0 else { return failed("attune conformance --list failed") }
        var best = Double.infinity
        var peak = 0
        for _ in 0..<5 {
            guard let run = ReplayBenchmarks.run(attune, ["conformance", "--against", "C0:00:00:00:00:01",
                                                          "--transport", "memory"]) else {
                return failed("attune conformance --against over memory failed (a test failed, or it did not run)")
            }
            best = min(best, run.seconds)
            peak = max(peak, run.peakKilobytes)
        }
        return BenchmarkResult(name: "", opsPerSecond: Double(tests) / best, allocationsPerOperation: 0, extra: [
            ("tests", .int(tests)),
            ("run_seconds", .double((best * 1000).rounded() / 1000)),
            ("peak_rss_mb", ConformanceBenchmarks.megabytes(peak)),
        ])
    }

    /// How many tests `attune conformance --list` names (one line each).
    static func listedTests(_ attune: String) -> Int? {
        let output = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: attune)
        process.arguments = ["conformance", "--list"]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").count
    }
}
