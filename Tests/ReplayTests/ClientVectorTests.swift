import ATT
import ATTPresentation
import FixtureTestSupport
import Foundation
import Replay
import Testing
@testable import GATT

/// Every client-role vector of Fixtures/conformance, in both start-up modes.
@Suite("Client conformance vectors")
struct ClientVectorTests {
    static let suite = try! ConformanceSuite(vectorsFile: Fixtures.vectors, databasesFile: Fixtures.databases)

    static let clientIDs = suite.vectors.filter { $0.role == .client }.map(\.id)

    @Test func fiftyClientVectors() {
        #expect(Self.clientIDs.count == 50)
    }

    static func check(_ id: String, _ mode: ClientVectorRunner.StartupMode) {
        let vector = suite.vectors.first { $0.id == id }!
        let (outcome, transcript) = ClientVectorRunner(mode: mode).runWithTranscript(vector, databases: suite.databases)
        if ClientVectorRunner.expectedDivergences[id] != nil { return }
        #expect(outcome == .passed, "\(id) [\(mode.rawValue)]: \(outcome)\n\(transcript.joined(separator: "\n"))")
    }

    @Test("full bootstrap", arguments: clientIDs)
    func fullBootstrap(id: String) { Self.check(id, .fullBootstrap) }

    @Test("seeded cache", arguments: clientIDs)
    func seededCache(id: String) { Self.check(id, .seededCache) }

    /// The runner can fail: a vector whose expected client PDU was altered must not pass.
    @Test func alteredVectorFails() {
        var vector = Self.suite.vectors.first { $0.id == "/TP/GAW/CL/BI-23-C/auto" }!
        let index = vector.steps.lastIndex { $0.direction == .iutToTester }!
        vector.steps[index].pdu[1] ^= 0xFF
        #expect(ClientVectorRunner().run(vector, databases: Self.suite.databases) != .passed)
        var expectation = Self.suite.vectors.first { $0.id == "/TP/GAR/CL/BI-26-C/auto" }!
        if case .object(var fields)? = expectation.expect, let i = fields.firstIndex(where: { $0.0 == "value_hex" }) {
            fields[i].1 = .string("0102ff")
            expectation.expect = .object(fields)
        } else {
            Issue.record("vector has no value_hex")
        }
        #expect(ClientVectorRunner().run(expectation, databases: Self.suite.databases) != .passed)
    }

    /// The suite wires the client runner in: every client vector passes through it.
    @Test func suiteRunsTheClientRole() {
        let results = Self.suite.run(role: .client)
        #expect(results.count == 50)
        #expect(results.allSatisfy { $0.outcome == .passed }, "\(results.filter { $0.outcome != .passed }.map(\.line))")
    }
}
