import Foundation
import Testing

/// `attune serve` serves what its database says, or refuses it with the JSON path and the
/// reason, in a few lines.
@Suite("attune serve database validation")
struct ServeDatabaseTests {
    static func serve(_ json: String, _ extra: [String] = []) async throws -> AttuneProcess {
        let db = AttuneProcess.temporaryFile(".json")
        defer { try? FileManager.default.removeItem(atPath: db) }
        try Data(json.utf8).write(to: URL(fileURLWithPath: db))
        return try await AttuneProcess.run(["serve", db, "--json", "--transport", "memory"] + extra)
    }

    static func readHandles(_ run: AttuneProcess) -> [Int] {
        run.stdoutLines.compactMap(\.jsonObject).filter { $0["event"] as? String == "read" }.compactMap { $0["handle"] as? Int }
    }

    @Test func explicitHandlesAreServedWhereTheyAsk() async throws {
        // The first service's handle (once ignored), and a free characteristic handle
        // (once refused as "already used").
        let run = try await Self.serve(#"""
            {"services": [
              {"uuid": "180f", "handle": "0x0100", "characteristics": [{"uuid": "2a19", "properties": ["read"], "value_hex": "64"}]},
              {"uuid": "180a", "characteristics": [{"uuid": "2a29", "properties": ["read"], "value_hex": "41", "handle": "0x0200"}]}
            ]}
            """#)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(Self.readHandles(run) == [0x0102, 0x0201], "\(run.stdout)")
    }

    @Test func handlesTakenByGAPAreRefusedWithTheReason() async throws {
        let run = try await Self.serve(#"{"services": [{"uuid": "180f", "handle": 2, "characteristics": [{"uuid": "2a19", "properties": ["read"]}]}]}"#)
        #expect(run.status == 1)
        #expect(run.stderr.contains("services[0].handle: 0x0002…0x0004 overlaps service 1800"), "stderr: \(run.stderr)")
        #expect(run.stderr.contains("already published"))
        #expect(!run.stderr.contains("already used"))
    }

    @Test(arguments: [(#""value_hex": "\#(String(repeating: "ab", count: 513))""#, "characteristics[0].value_hex: 513 bytes"),
                      (#""value_text": "\#(String(repeating: "x", count: 600))""#, "characteristics[0].value_text: 600 bytes"),
                      (#""max_length": -1"#, "characteristics[0].max_length: -1 is outside 0…512"),
                      (#""max_length": 70000"#, "characteristics[0].max_length: 70000 is outside 0…512")])
    func valuesAndLengthsServeCannotHonourAreRefused(field: String, message: String) async throws {
        let run = try await Self.serve(#"{"services": [{"uuid": "180f", "characteristics": [{"uuid": "2a19", "properties": ["read", "write"], \#(field)}]}]}"#)
        #expect(run.status == 1)
        #expect(run.stderr.contains("$.services[0]." + message), "stderr: \(run.stderr.prefix(500))")
    }

    @Test func negativeReservationsAreRefused() async throws {
        let run = try await Self.serve(#"{"services": [{"uuid": "180f", "reserved_handles": -1}]}"#)
        #expect(run.status == 1)
        #expect(run.stderr.contains("$.services[0].reserved_handles: expected a whole number 0…65535, not -1"), "stderr: \(run.stderr)")
    }

    @Test func aDatabasePastTheLastHandleIsRefusedInALine() async throws {
        let service = #"{"uuid": "180f", "characteristics": [{"uuid": "2a19", "properties": ["read"]}, {"uuid": "2a1a", "properties": ["read"]}]}"#
        let run = try await Self.serve(#"{"services": [\#(Array(repeating: service, count: 14_000).joined(separator: ","))]}"#)
        #expect(run.status == 1)
        #expect(run.stderr.contains("past 0xffff") || run.stderr.contains("end at 0xffff"), "stderr: \(run.stderr.prefix(500))")
        #expect(run.stderr.utf8.count < 1000, "\(run.stderr.utf8.count) bytes of error")
    }
}
