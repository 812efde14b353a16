import Attune
import ControllerTestSupport
import Foundation
import InteropTestSupport
import Replay
import Testing

/// `LiveReplay` (what `attune replay --as client --against` runs) against the Bumble GATT
/// peripheral over our userland host: a session of our central with it, captured by the
/// central's own `snoop:`, is replayed against the same peripheral, which must answer
/// every procedure as it did.
@Suite(.serialized, .enabled(if: InteropLab.pythonAvailable, "python3 is missing: the Bumble interop matrix cannot run"))
struct LiveReplayInteropTests {
    @Test("replay --against: a captured session with Bumble's peripheral, replayed against it, matches")
    func capturedSessionReplaysAgainstBumble() async throws {
        let lab = try await InteropLab.start(role: "peripheral", notifyCount: 3)
        defer { lab.stop() }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("live-replay-\(UUID().uuidString).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let central = try await PublicAPIInteropTests.central(lab, snoop: try SnoopFile(path: path))
        let name = try #require(lab.ready.device(0, "name"))
        let peripheral = try #require(try await PublicAPIInteropTests.find([name], with: central).first)
        try await central.connect(peripheral, timeout: hangGuard)

        // The session to capture: discovery (on connect, and of the lab's service), a read,
        // a long read, a write read back, and a read the peripheral refuses.
        let service = try #require(try await peripheral.discoverServices([PublicAPIInteropTests.service]).first)
        let characteristics = try await peripheral.discoverCharacteristics(nil, for: service)
        func characteristic(_ n: Int) throws -> Characteristic {
            try #require(characteristics.first { $0.uuid == PublicAPIInteropTests.uuid(n) })
        }
        _ = try await peripheral.readValue(for: characteristic(4))
        _ = try await peripheral.readValue(for: characteristic(2))
        try await peripheral.writeValue(Array(0..<20), for: characteristic(3), type: .withResponse)
        _ = try await peripheral.readValue(for: characteristic(3))
        await #expect(throws: AttuneError.att(ATTErrorCode(rawValue: 0x8E))) {
            try await peripheral.readValue(for: characteristic(7))
        }

        // What the capture holds so far (the connection is still open: it ends the file).
        let conversations = try ATTConversationCollector.conversations(path: path).filter { !$0.pdus.isEmpty }
        let captured = try #require(conversations.first)
        #expect(conversations.count == 1)

        // The same procedures again, on the same link, against the same peripheral.
        let outcomes = await LiveReplay.run(captured, against: peripheral)
        for o in outcomes {
            print("live replay against Bumble: \(o.run.procedure): \(o.verdict), \(o.duration)")
        }
        let verdicts = Dictionary(grouping: outcomes, by: \.verdict).mapValues(\.count)
        #expect(verdicts[.diverged] == nil, "\(outcomes.filter { $0.verdict == .diverged }.map { "\($0.run.procedure): captured \(String(describing: $0.captured)), live \(String(describing: $0.live))" })")
        #expect(verdicts[.notComparable] == nil)
        #expect(outcomes.filter { $0.verdict == .notReplayed }.allSatisfy {
            if case .exchangeMTU = $0.run.procedure.kind { return true } else { return false }
        })
        #expect((verdicts[.matched] ?? 0) >= 8, "\(verdicts)")
        // The refused read is compared too: both answers are Bumble's 0x8E.
        #expect(outcomes.contains { $0.verdict == .matched && $0.live == .failure(.att(ATTErrorCode(rawValue: 0x8E))) })
        await central.cancelConnection(peripheral)
    }
}
