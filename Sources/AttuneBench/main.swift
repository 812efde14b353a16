import Foundation
import ATT
import ATTPresentation

// attune-bench [--json] [--filter TEXT] [--quick]
// Run as `swift run -c release attune-bench`; debug builds measure nothing useful.
let arguments = Array(CommandLine.arguments.dropFirst())
// attune-bench --interop ...: the userland stack against a live peer (Scripts/interop/bench.sh).
if arguments.contains("--interop") {
    exit(await InteropBenchmark.run(arguments))
}
let json = arguments.contains("--json")
let quick = arguments.contains("--quick")
let filter = arguments.firstIndex(of: "--filter").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }

/// Every benchmark group. Each module's benchmarks live in their own file.
var benchmarks: [Benchmark] = []
benchmarks += ATTBenchmarks.all
benchmarks += GATTServerBenchmarks.all
benchmarks += GATTClientBenchmarks.all
benchmarks += AnchorBenchmarks.all
benchmarks += CaptureBenchmarks.all
benchmarks += HCIHostBenchmarks.all
benchmarks += ReplayBenchmarks.all
benchmarks += ConformanceBenchmarks.all
benchmarks += ConformanceAgainstBenchmark.all
benchmarks += SMPBenchmarks.all

var results: [BenchmarkResult] = []
for benchmark in benchmarks where filter.map({ benchmark.name.contains($0) }) ?? true {
    let result = BenchmarkRunner.run(benchmark, target: quick ? 0.05 : 0.3, rounds: quick ? 1 : 3)
    results.append(result)
    if !json { printRow(result) }
}
// The public API's figures run on the concurrency runtime, after the synchronous ones.
for result in await APIBenchmarks.all(filter: filter, quick: quick) {
    results.append(result)
    if !json { printRow(result) }
}
// The gateway's reconnect figure needs Bumble and mosquitto: only when --filter names it.
for result in await GatewayReconnectBenchmark.all(filter: filter, quick: quick) {
    results.append(result)
    if !json { printRow(result) }
}
// Our central's pairing against Bumble's, same run: only when --filter names it.
for result in await PairingBenchmark.all(filter: filter, quick: quick) {
    results.append(result)
    if !json { printRow(result) }
}
// The gateway at scale, against the real broker (Debian's mosquitto must be installed).
for result in await GatewayScaleBenchmark.all(filter: filter, quick: quick, arguments: arguments) {
    results.append(result)
    if !json { printRow(result) }
}
if json {
    print(JSONValue.object([("benchmarks", .array(results.map(\.json)))]).description)
}

func printRow(_ result: BenchmarkResult) {
    let ops = result.opsPerSecond >= 1e6
        ? String(format2(result.opsPerSecond / 1e6)) + " M/s" : String(format2(result.opsPerSecond / 1e3)) + " k/s"
    let extra = result.extra.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
    print(pad(result.name, 48) + pad(ops, 14) + pad(format2(result.allocationsPerOperation) + " allocs/op", 18) + extra)
}

func pad(_ s: String, _ width: Int) -> String { s.count >= width ? s + " " : s + String(repeating: " ", count: width - s.count) }

func format2(_ x: Double) -> String {
    guard x.isFinite else { return "-" }
    let scaled = (x * 100).rounded() / 100
    var s = String(scaled)
    if let dot = s.firstIndex(of: ".") {
        let decimals = s.distance(from: dot, to: s.endIndex) - 1
        if decimals < 2 { s += String(repeating: "0", count: 2 - decimals) }
    }
    return s
}
