import ATT
import Capture
import GATT
import Replay
import Testing

/// Every fixture's server side replayed against our GATT client running the procedures
/// the captured client ran. The divergences expected are listed with their causes; any
/// other divergence, or one without an explanation, fails.
@Suite struct ClientReplayFixtureTests {
    /// Expected divergences per fixture: (record of the captured client PDU, words of the explanation).
    static let expected: [String: [(Int, String)]] = [
        // Bumble's client reads Battery Level by UUID with one request; ours goes on.
        "inproc_mtu185_central.btsnoop": [(103, "continues Read Using Characteristic UUID")],
        "inproc_mtu185_peripheral.btsnoop": [(136, "continues Read Using Characteristic UUID")],
        // btgatt-server refused the second part of a reliable write (its Device Name
        // quirk); btgatt-client executed anyway, ours cancels.
        "kernel/bluez_hr_mtu517.btsnoop": [(323, "our client then cancels the queued writes")],
        // gatttool's char-read-uuid sends one Read By Type; ours goes on.
        "kernel/gatttool_vs_btgatt.btsnoop": [(461, "continues Read Using Characteristic UUID")],
    ]

    static func conversations(_ name: String) throws -> [ATTConversation] {
        var seen: Set<[[UInt8]]> = []
        return try ATTConversationCollector.conversations(path: Fixtures.capturePath(name)).filter {
            seen.insert($0.pdus.map { Array($0.bytes) }).inserted
        }
    }

    @Test(arguments: Fixtures.captures)
    func replayAsClient(_ name: String) throws {
        let reports = ClientReplay.run(try Self.conversations(name))
        let divergences = reports.flatMap(\.divergences)
        let matched = reports.reduce(0) { $0 + $1.matched }
        #expect(matched > 0)
        let expected = Self.expected[name] ?? []
        #expect(divergences.map(\.input.frame.recordIndex) == expected.map(\.0),
                "\(name): \(divergences.map(\.description).joined(separator: "\n"))")
        for (d, (_, words)) in zip(divergences, expected) {
            #expect(d.explanation?.contains(words) == true, "\(name): \(d)")
        }
        print("replay as client: \(name): \(matched) matched, \(divergences.count) diverged, \(divergences.filter { $0.explanation != nil }.count) explained")
    }

    @Test func everyProcedureKindHasACommandOrAReason() {
        #expect(ClientReplay.command(for: .readValue(0x0003)) == .readValue(0x0003))
        #expect(ClientReplay.command(for: .cancelledWrites([])) == nil)
        #expect(ClientReplay.command(for: .writeLongValue(0x0003, offset: 0, [1, 2])) == .writeLongValue(0x0003, offset: 0, [1, 2]))
    }
}
