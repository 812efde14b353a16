import ATT
import Capture
import Foundation
import GATT
import Replay
import Testing

/// Every fixture replayed against our GATT server, serving the database rebuilt from the
/// capture. The divergences expected are listed here with their causes; any other
/// divergence, or one without an explanation, fails.
@Suite struct ServerReplayFixtureTests {
    /// Expected divergences per fixture: (record of the request, words of the explanation).
    static let expected: [String: [(Int, String)]] = [
        "kernel/bluez_hr_mtu517.btsnoop": [
            // btgatt-server's Heart Rate Control Point accepts only 0x01.
            (203, "application rejected the value"),
            // The README's first BlueZ quirk: 511 bytes refused, header counted.
            (235, "BlueZ counts the 4 header bytes"),
            // The README's second quirk: Device Name long write truncated at the offset.
            (317, "Device Name callback truncates"),
            (329, "follows from the divergence at record 235"),
            (347, "follows from the divergence at record 235"),
            // The heart-rate service hidden, then shown (Service Changed).
            (404, "database changed during the capture"),
            (422, "database changed during the capture"),
        ],
        "kernel/gatttool_vs_btgatt.btsnoop": [
            // btgatt-server answered Write Response to the Device Name but kept the old name.
            (461, "does not keep that write"),
        ],
    ]

    static func replay(_ name: String) throws -> [ReplayReport] {
        let path = Fixtures.capturePath(name)
        var seen: Set<[[UInt8]]> = []
        let conversations = try ATTConversationCollector.conversations(path: path).filter {
            seen.insert($0.pdus.map { Array($0.bytes) }).inserted
        }
        let rebuilt = CapturedDatabase(conversations: conversations)
        let json = try JSONSerialization.jsonObject(with: Data(rebuilt.json.description.utf8))
        let database = try DatabaseJSON.database(from: json)
        var mtu: UInt16?
        for c in conversations {
            for p in c.pdus { if case let .success(.exchangeMTUResponse(r)) = p.pdu { mtu = mtu ?? r.serverRxMTU } }
        }
        var target = GATTServerReplayTarget(database: database, rxMTU: mtu)
        return ServerReplay.run(conversations, against: &target, databaseRebuilt: true)
    }

    @Test(arguments: Fixtures.captures)
    func replayAsServer(_ name: String) throws {
        let reports = try Self.replay(name)
        let divergences = reports.flatMap(\.divergences)
        let matched = reports.reduce(0) { $0 + $1.matched }
        #expect(matched > 0)
        let expected = Self.expected[name] ?? []
        #expect(divergences.map(\.input.frame.recordIndex) == expected.map(\.0),
                "\(name): \(divergences.map(\.description).joined(separator: "\n"))")
        for (d, (_, words)) in zip(divergences, expected) {
            #expect(d.explanation?.contains(words) == true, "\(name): \(d)")
        }
        print("replay as server: \(name): \(matched) matched, \(divergences.count) diverged, \(divergences.filter { $0.explanation != nil }.count) explained")
    }
}
