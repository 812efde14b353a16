import ATT
import Foundation
import Testing
@testable import GATT

/// Every client-role vector of Fixtures/conformance, in both start-up modes.
@Suite("Client conformance vectors")
struct ClientVectorTests {
    static let directory: String = {
        let here = URL(fileURLWithPath: #filePath)
        return here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/conformance").path
    }()

    static let runner: ClientVectorRunner = try! ClientVectorRunner(directory: directory)

    @Test func fiftyClientVectors() {
        #expect(Self.runner.vectorIDs.count == 50)
    }

    @Test("full bootstrap", arguments: runner.vectorIDs)
    func fullBootstrap(id: String) {
        let outcome = Self.runner.run(id: id, mode: .fullBootstrap)
        #expect(outcome.passed || outcome.expectedDivergence != nil, "\(outcome)\n\(outcome.transcript.joined(separator: "\n"))")
    }

    @Test("seeded cache", arguments: runner.vectorIDs)
    func seededCache(id: String) {
        let outcome = Self.runner.run(id: id, mode: .seededCache)
        #expect(outcome.passed || outcome.expectedDivergence != nil, "\(outcome)\n\(outcome.transcript.joined(separator: "\n"))")
    }
}
