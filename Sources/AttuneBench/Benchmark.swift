import ATT
import ATTPresentation
import CAllocCounter

/// One named measurement in `attune-bench`.
///
/// A throughput benchmark gets an iteration count and runs the operation that many
/// times; the runner calibrates the count, times it, and counts heap allocations. A
/// custom benchmark measures itself and returns its figures (used for figures such as
/// MB/s or latency percentiles, and for anchors measured in the same run).
struct Benchmark {
    enum Body {
        case throughput((Int) -> Void)
        case custom(() -> BenchmarkResult)
    }

    let name: String
    let body: Body

    static func throughput(_ name: String, _ operation: @escaping (Int) -> Void) -> Benchmark {
        Benchmark(name: name, body: .throughput(operation))
    }

    static func custom(_ name: String, _ measure: @escaping () -> BenchmarkResult) -> Benchmark {
        Benchmark(name: name, body: .custom(measure))
    }
}

/// The figures a benchmark reports. `extra` holds anything beyond ops/s and allocations
/// (units, anchor figures, ratios), printed in the table and in the JSON.
struct BenchmarkResult {
    var name: String
    var opsPerSecond: Double
    var allocationsPerOperation: Double
    var extra: [(String, JSONValue)] = []

    var json: JSONValue {
        .object([("name", .string(name)), ("ops_per_sec", .double(opsPerSecond.rounded())),
                 ("allocs_per_op", .double((allocationsPerOperation * 1000).rounded() / 1000))] + extra)
    }
}

/// Keeps the optimizer from deleting work whose result is otherwise unused.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Counts heap allocations made while `body` runs.
func countAllocations(_ body: () -> Void) -> UInt64 {
    let before = attune_alloc_count()
    body()
    return attune_alloc_count() &- before
}
