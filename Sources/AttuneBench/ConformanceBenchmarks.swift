import ATTPresentation
import Foundation

/// `attune conformance` on the shared GATT vector file (Fixtures/conformance): vectors
/// per second and the runner's peak RSS, as a child process like ``ReplayBenchmarks``.
///
/// The shared file is small (105 vectors, 418 kB), so a run takes tens of milliseconds
/// and its rate is the best of several runs. The same vectors repeated to about 34 MB
/// (the size that once peaked at 624 MB) show that the streaming runner's memory is
/// bounded by one test, not by the file. The anchor is `python3 -c 'json.load(...)'`
/// on the same file in the same run: only parsing it, with the whole document in memory.
enum ConformanceBenchmarks {
    static var all: [Benchmark] {
        [.custom("conformance.run") { measure() }]
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/conformance").path

    static func measure() -> BenchmarkResult {
        let attune = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("attune").path
        func failed(_ why: String) -> BenchmarkResult {
            BenchmarkResult(name: "", opsPerSecond: 0, allocationsPerOperation: 0, extra: [("error", .string(why))])
        }
        guard FileManager.default.isExecutableFile(atPath: attune) else {
            return failed("no attune beside attune-bench: build it (swift build -c release)")
        }
        let vectors = fixtures + "/gatt-vectors.json"
        let databases = fixtures + "/gatt-dbs.json"
        guard let data = FileManager.default.contents(atPath: vectors),
              let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let tests = document["tests"] as? [Any]
        else { return failed("cannot read \(vectors)") }

        var extra: [(String, JSONValue)] = [("vectors", .int(tests.count))]
        var best = 0.0
        var peak = 0
        for _ in 0..<10 {
            guard let run = ReplayBenchmarks.run(attune, ["conformance", vectors, "--databases", databases]) else {
                return failed("attune conformance failed on \(vectors)")
            }
            best = max(best, Double(tests.count) / run.seconds)
            peak = max(peak, run.peakKilobytes)
        }
        extra.append(("peak_rss_mb", megabytes(peak)))
        if let python = ReplayBenchmarks.run("/usr/bin/python3", ["-c", "import json,sys; json.load(open(sys.argv[1]))", vectors]) {
            extra.append(("anchor_python_json_load_ms", .double((python.seconds * 10_000).rounded() / 10)))
            extra.append(("anchor_python_peak_rss_mb", megabytes(python.peakKilobytes)))
        }

        // The same vectors, repeated to about 34 MB.
        let large = NSTemporaryDirectory() + "attune-bench-vectors-34mb.json"
        defer { unlink(large) }
        let compact = (try? JSONSerialization.data(withJSONObject: document).count) ?? data.count
        let copies = max(1, 34_000_000 / max(1, compact))
        var repeated = document
        repeated["tests"] = Array(repeating: tests, count: copies).flatMap { $0 }
        guard let largeData = try? JSONSerialization.data(withJSONObject: repeated),
              FileManager.default.createFile(atPath: large, contents: largeData)
        else { return failed("cannot write \(large)") }
        guard let run = ReplayBenchmarks.run(attune, ["conformance", large, "--databases", databases]) else {
            return failed("attune conformance failed on \(large)")
        }
        extra += [("large_file_mb", megabytes(largeData.count / 1024)),
                  ("large_vectors_per_sec", .double((Double(tests.count * copies) / run.seconds).rounded())),
                  ("large_peak_rss_mb", megabytes(run.peakKilobytes))]
        return BenchmarkResult(name: "", opsPerSecond: best, allocationsPerOperation: 0, extra: extra)
    }

    static func megabytes(_ kilobytes: Int) -> JSONValue { .double((Double(kilobytes) / 102.4).rounded() / 10) }
}
