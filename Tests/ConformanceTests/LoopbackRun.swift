import ATT
import Conformance
import BluetoothCore
import GATT
import GATTTestSupport

/// The tester against our server engine on one thread with explicit time: every PDU
/// either side sends is delivered at once, and only when both are quiet does the clock
/// jump to the tester's wake-up. No sleeps; a run ends when the tester says so.
struct LoopbackRun {
    var reports: [ConformanceTestReport]
    /// The time the run took on the injected clock.
    var elapsed: Duration

    /// Runs `tests` against `iut`; `drops` loses the PDUs to the IUT it returns true for,
    /// and `rewrite` turns the IUT's answers to a request into others.
    init(_ iut: ServerUnderTest, tests: [ServerTestCase] = ServerTestCatalog.all,
         drops: @escaping ([UInt8]) -> Bool = { _ in false },
         rewrite: @escaping (_ request: [UInt8], _ answers: [[UInt8]]) -> [[UInt8]] = { $1 }) {
        var iut = iut
        var tester = ServerConformanceTester(tests: tests)
        var now = MonotonicTime.zero
        var wake: MonotonicTime?
        var toIUT: [[UInt8]] = []
        func take(_ actions: [TesterAction]) {
            for action in actions {
                switch action {
                case .send(let bytes): toIUT.append(bytes)
                case .wake(let at): wake = at
                case .report, .finished: break
                }
            }
        }
        take(tester.start(at: now))
        // A bound on steps, so a tester bug fails the test instead of hanging it.
        var steps = 0
        while !tester.isFinished, steps < 1_000_000 {
            steps += 1
            if !toIUT.isEmpty {
                let pdu = toIUT.removeFirst()
                if drops(pdu) { continue }
                for answer in rewrite(pdu, iut.receive(pdu, at: now)) { take(tester.receive(answer, at: now)) }
            } else if let due = wake {
                wake = nil
                if due > now { now = due }
                take(tester.tick(at: now))
            } else {
                break
            }
        }
        reports = tester.reports
        elapsed = now.duration(since: .zero)
    }

    /// The verdicts by test id.
    var verdicts: [String: ConformanceTestVerdict] {
        Dictionary(reports.map { ($0.id, $0.verdict) }, uniquingKeysWith: { first, _ in first })
    }

    /// The ids of the tests that failed.
    var failed: Set<String> { Set(reports.filter(\.verdict.isFailure).map(\.id)) }

    /// One line per test, for a failing expectation's message.
    var summary: String {
        reports.map { "\($0.verdict.name) \($0.id) \($0.verdict.reason)" }.joined(separator: "\n")
    }
}
