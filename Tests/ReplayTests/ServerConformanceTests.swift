import FixtureTestSupport
import Testing
import GATT
import Replay
import HexTestSupport

/// The library path of `attune conformance --role server`: every server vector passes.
@Suite struct ServerConformanceTests {
    static let suite = try! ConformanceSuite(vectorsFile: Fixtures.vectors, databasesFile: Fixtures.databases)

    @Test func everyServerVectorPasses() {
        let results = Self.suite.run(role: .server)
        for r in results {
            if case .failed = r.outcome { Issue.record("\(r.line)") }
        }
        let passed = results.filter { $0.outcome == .passed }.count
        #expect(passed == 55, "\(ConformanceSuite.summary(results))")
    }

    @Test func clientVectorsAreNotRunWithoutFailing() {
        let results = Self.suite.run(role: .client)
        #expect(results.count == 50)
        #expect(!results.contains { if case .failed = $0.outcome { true } else { false } })
    }
}

/// The runner itself must be able to fail.
@Suite struct ServerRunnerStrictnessTests {
    static let suite = ServerConformanceTests.suite

    func vector(_ id: String) -> ConformanceVector { Self.suite.vectors.first { $0.id == id }! }

    @Test func wrongExpectedBytesFail() {
        var v = vector("/TP/GAR/SR/BV-01-C/small")
        v.steps[3].pdu = bytes("0b426c75655b")
        guard case .failed(let d) = ServerVectorRunner().run(v, databases: Self.suite.databases) else {
            Issue.record("tampered vector passed"); return
        }
        #expect(d.step == 3)
        #expect(d.got.contains("426c75655a"))
    }

    @Test func extraIUTPDUFails() {
        var v = vector("/TP/GAR/SR/BV-01-C/small")
        v.steps.removeLast()
        guard case .failed = ServerVectorRunner().run(v, databases: Self.suite.databases) else {
            Issue.record("unexpected PDU not reported"); return
        }
    }

    @Test func expectNoIUTPDUIsEnforced() {
        var v = vector("/TP/GAR/SR/BV-01-C/small")
        v.steps[2].expectNoIUTPDU = true
        v.steps.removeLast()
        guard case .failed = ServerVectorRunner().run(v, databases: Self.suite.databases) else {
            Issue.record("answer to a silent step not reported"); return
        }
    }
}

@Suite struct VectorLoadingTests {
    @Test func actionsAndExpectationsKeepTheirTypes() {
        let v = ServerConformanceTests.suite.vectors.first { $0.id == "/TP/GAI/SR/BV-01-C" }!
        #expect(v.action?["handle"] == .int(3))
        #expect(v.action?["call"]?.stringValue == "send_indication")
        #expect(v.expect?["confirmation_callback_invoked"] == .bool(true))
        #expect(v.rxMTU == 512)
        #expect(v.steps[0].direction == .testerToIUT)
    }
}
