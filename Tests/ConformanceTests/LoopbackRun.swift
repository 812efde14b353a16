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

    /// How many new links the tester asked for.
    var restarts = 0

    /// Runs `tests` against `iut`; `drops` loses the PDUs to the IUT it returns true for,
    /// `rewrite` turns the IUT's answers to a request into others, and `disconnects` makes
    /// the IUT drop the link instead of answering the PDU it returns true for. A new link
    /// (after a restart the tester asks for) is a fresh connection to `iut` as it started.
    init(_ iut: ServerUnderTest, tests: [ServerTestCase] = ServerTestCatalog.all,
         configuration: ServerConformanceTester.Configuration = .init(),
         drops: @escaping ([UInt8]) -> Bool = { _ in false },
         disconnects: @escaping ([UInt8]) -> Bool = { _ in false },
         rewrite: @escaping (_ request: [UInt8], _ answers: [[UInt8]]) -> [[UInt8]] = { $1 }) {
        let fresh = iut
        var iut = iut
        var tester = ServerConformanceTester(tests: tests, configuration: configuration)
        var restartPending = false
        var restarts = 0
        var now = MonotonicTime.zero
        var wake: MonotonicTime?
        var toIUT: [[UInt8]] = []
        func take(_ actions: [TesterAction]) {
            for action in actions {
                switch action {
                case .send(let bytes): toIUT.append(bytes)
                case .wake(let at): wake = at
                case .restartLink: restartPending = true
                case .report, .finished: break
                }
            }
        }
        take(tester.start(at: now))
        // A bound on steps, so a tester bug fails the test instead of hanging it.
        var steps = 0
        while !tester.isFinished, steps < 1_000_000 {
            steps += 1
            if restartPending {
                restartPending = false
                restarts += 1
                toIUT.removeAll()
                wake = nil
                iut = fresh
                take(tester.linkRestored(at: now))
            } else if !toIUT.isEmpty {
                let pdu = toIUT.removeFirst()
                if drops(pdu) { continue }
                if disconnects(pdu) {
                    toIUT.removeAll()
                    wake = nil
                    take(tester.linkLost(at: now, reason: "the IUT disconnected"))
                    continue
                }
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
        self.restarts = restarts
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
