import ATT
import Capture
import GATT
import Replay
import Testing

/// Replay takes hostile captures too: timestamps that jump anywhere must not trap
/// (found by Fuzz/Capture.swift).
@Suite struct ReplayRobustnessTests {
    @Test(arguments: [(0, Int64.max), (Int64.max, 0), (0, 1), (Int64.max, Int64.max - 1)] as [(Int64, Int64)])
    func extremeTimestampsReplay(_ even: Int64, _ odd: Int64) throws {
        let (_, records) = try readAll(try Fixtures.bytes("inproc_mtu185_central.btsnoop"))
        var damaged = records
        for i in stride(from: 40, to: damaged.count, by: 7) { damaged[i].timestamp = i % 2 == 0 ? even : odd }
        // pcapng: its 64-bit ticks hold every time from 1970 to the end of Int64's
        // microseconds (btsnoop refuses times outside its range; a time before 1970 would
        // need an if_tsoffset, which the writer does not write).
        let file = try writeAll(damaged, as: .pcapng(.bluetoothHCIH4WithPHDR))
        for side in [ReplaySession.Side.client, .server] {
            var session = ReplaySession(reader: try CaptureReader(bytes: file), side: side)
            var conversations = 0, matched = 0
            while let step = try session.next() {
                conversations += 1
                matched += step.report.matched
            }
            #expect(conversations > 0)
            if side == .server { #expect(matched > 0) }
        }
    }
}
