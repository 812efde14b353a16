import ATT
import Capture
import CaptureTestSupport
import FixtureTestSupport
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
        let intact = try writeAll(records, as: .pcapng(.bluetoothHCIH4WithPHDR))
        for side in [ReplaySession.Side.client, .server] {
            // Matching goes by the PDUs, never by the times: the damaged capture replays
            // exactly as the intact one, which replays as it was recorded.
            let replayed = try Self.replay(file, side: side)
            #expect(replayed == Self.intactReplay[side], "\(side)")
            #expect(try Self.replay(intact, side: side) == Self.intactReplay[side], "\(side), intact")
        }
    }

    /// The intact capture's replay: one conversation. Our client diverges once, and the
    /// report explains it (its Read Using Characteristic UUID goes on past the first
    /// answer's handle where the captured client stopped); everything else matches.
    static let intactReplay: [ReplaySession.Side: Replayed] = [
        .client: Replayed(conversations: 1, matched: 52, diverged: 1, explained: 1),
        .server: Replayed(conversations: 1, matched: 58),
    ]

    struct Replayed: Equatable {
        var conversations = 0
        var matched = 0
        var diverged = 0
        var explained = 0
        var notReplayed = 0
    }

    static func replay(_ file: [UInt8], side: ReplaySession.Side) throws -> Replayed {
        var session = ReplaySession(reader: try CaptureReader(bytes: file), side: side)
        var replayed = Replayed()
        while let step = try session.next() {
            replayed.conversations += 1
            replayed.matched += step.report.matched
            replayed.diverged += step.report.diverged
            replayed.explained += step.report.explained
            replayed.notReplayed += step.report.notReplayed
        }
        print("ReplayRobustnessTests: \(side): \(replayed)")
        return replayed
    }
}
