import ATT

/// Calibrates, times and counts allocations for throughput benchmarks.
enum BenchmarkRunner {
    /// Runs one benchmark. Throughput benchmarks are calibrated to about `target`
    /// seconds per round and the best of `rounds` is kept, which rejects noise from the
    /// other core's load rather than averaging it in.
    static func run(_ benchmark: Benchmark, target: Double, rounds: Int) -> BenchmarkResult {
        switch benchmark.body {
        case .custom(let measure):
            var result = measure()
            result.name = benchmark.name
            return result
        case .throughput(let operation):
            operation(16)  // warm caches and lazy initialisation
            var n = 64
            while true {
                let t = time { operation(n) }
                if t >= 0.02 || n >= 1 << 30 {
                    n = max(1, Int(Double(n) * target / max(t, 1e-9)))
                    break
                }
                n *= 4
            }
            var best = 0.0
            for _ in 0..<rounds {
                let t = time { operation(n) }
                best = max(best, Double(n) / t)
            }
            let probe = max(1, min(n, 10_000))
            let allocations = countAllocations { operation(probe) }
            return BenchmarkResult(name: benchmark.name, opsPerSecond: best,
                                   allocationsPerOperation: Double(allocations) / Double(probe))
        }
    }

    static func time(_ body: () -> Void) -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        body()
        let d = clock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }
}
