import Foundation
import Testing

/// `attune conformance --list` names the vectors (the ids `--only` takes) without running
/// them, and a malformed vector file is an error at its JSON path and byte.
@Suite struct ConformanceListTests {
    static let vectors = "Fixtures/conformance/gatt-vectors.json"

    @Test func listNamesEveryVectorOfTheRole() async throws {
        let run = try await AttuneProcess.run(["conformance", Self.vectors, "--list", "--role", "server"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdoutLines.count > 50)
        #expect(run.stdoutLines.allSatisfy { $0.hasPrefix("/") && $0.hasSuffix(" server") })
        let id = try #require(run.stdoutLines.first?.split(separator: " ").first.map(String.init))
        let one = try await AttuneProcess.run(["conformance", Self.vectors, "--databases", "Fixtures/conformance/gatt-dbs.json",
                                               "--only", id])
        #expect(one.stdoutLines.first == "PASS \(id)", "\(one.stdout)")
        #expect(one.stdoutLines.last == "1 passed, 0 failed")
    }

    @Test func aMalformedFileNamesPathAndByte() async throws {
        let path = AttuneProcess.temporaryFile(".json")
        defer { unlink(path) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(#"{"tests": [1, 2]}"#.utf8)))
        let run = try await AttuneProcess.run(["conformance", path, "--list"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("$.tests[0] at byte 11: expected a test vector object, not 1"), "\(run.stderr)")
    }
}
