import ATT
import Capture
import Foundation
import GATT
import Replay
import Testing

/// Replay takes hostile captures too: timestamps that jump anywhere must not trap
/// (found by Fuzz/Capture.swift).
@Suite struct ReplayRobustnessTests {
    @Test(arguments: [Int64.min, -1, 0, Int64.max])
    func extremeTimestampsReplay(_ extreme: Int64) throws {
        let (_, records) = try readAll(try Fixtures.bytes("inproc_mtu185_central.btsnoop"))
        var damaged = records
        for i in stride(from: 40, to: damaged.count, by: 7) { damaged[i].timestamp = i % 2 == 0 ? extreme : ~extreme }
        let file = try writeAll(damaged, as: .btsnoop(.hciUART))
        let conversations = try ATTConversationCollector.conversations(in: try CaptureReader(bytes: file))
        #expect(!conversations.isEmpty)
        _ = ClientReplay.run(conversations)
        let rebuilt = CapturedDatabase(conversations: conversations)
        let database = try DatabaseJSON.database(from: try JSONSerialization.jsonObject(with: Data(rebuilt.json.description.utf8)))
        var target = GATTServerReplayTarget(database: database, rxMTU: nil)
        let reports = ServerReplay.run(conversations, against: &target, databaseRebuilt: true)
        #expect(reports.reduce(0) { $0 + $1.matched } > 0)
    }
}
