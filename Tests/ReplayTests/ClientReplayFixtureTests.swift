import ATT
import Capture
import FixtureTestSupport
import GATT
import Replay
import Testing

/// Every fixture's server side replayed against our GATT client running the procedures
/// the captured client ran. The divergences expected are listed with their causes; any
/// other divergence, or one without a cause, fails.
@Suite struct ClientReplayFixtureTests {
    /// Expected divergences per fixture: (record of the captured client PDU, its cause).
    static let expected: [String: [(Int, DivergenceCause)]] = [
        // Bumble's client reads Battery Level by UUID with one request; ours goes on.
        "inproc_mtu185_central.btsnoop": [(103, .readUsingUUIDContinues)],
        "inproc_mtu185_peripheral.btsnoop": [(136, .readUsingUUIDContinues)],
        // btgatt-server refused the second part of a reliable write (its Device Name
        // quirk); btgatt-client executed anyway, ours cancels.
        "kernel/bluez_hr_mtu517.btsnoop": [(323, .refusedPartCancelsQueue)],
        // gatttool's char-read-uuid sends one Read By Type; ours goes on.
        "kernel/gatttool_vs_btgatt.btsnoop": [(461, .readUsingUUIDContinues)],
    ]

    /// Matched PDUs per fixture, as `attune replay --as client` reports them.
    static let matched: [String: Int] = [
        "h4_rawcentral_bumble.btsnoop": 10, "h4_rawcentral_external.btsnoop": 10,
        "h4_rawperipheral_bumble.btsnoop": 12, "h4_rawperipheral_external.btsnoop": 12,
        "inproc_mtu185_central.btsnoop": 52, "inproc_mtu185_peripheral.btsnoop": 52,
        // 52 before the cancelled prepared writes replayed (records 235 and 335, a
        // Prepare Write and its Execute Write cancel each).
        "kernel/bluez_hr_mtu517.btsnoop": 56, "kernel/gatttool_vs_btgatt.btsnoop": 20,
    ]

    /// Client PDUs of procedures our client does not run: none now (the bluez capture's
    /// two cancelled prepared writes were 4).
    static let notReplayed: [String: Int] = [:]

    @Test(arguments: Fixtures.captures)
    func replayAsClient(_ name: String) throws {
        var session = try ReplaySession(path: Fixtures.capturePath(name), side: .client)
        var reports: [ReplayReport] = []
        while let step = try session.next() { reports.append(step.report) }
        let divergences = reports.flatMap(\.divergences)
        let matched = reports.reduce(0) { $0 + $1.matched }
        #expect(matched == Self.matched[name], "\(name)")
        #expect(reports.reduce(0) { $0 + $1.notReplayed } == Self.notReplayed[name] ?? 0, "\(name)")
        let expected = Self.expected[name] ?? []
        #expect(divergences.map(\.input.frame.recordIndex) == expected.map(\.0), "\(name)")
        #expect(divergences.map(\.cause) == expected.map(\.1), "\(name)")
        print("replay as client: \(name): \(matched) matched, \(divergences.count) diverged, \(divergences.filter { $0.cause != nil }.count) explained")
    }

    @Test func everyProcedureKindHasACommandOrAReason() {
        #expect(ClientReplay.command(for: .readValue(0x0003)) == .readValue(0x0003))
        #expect(ClientReplay.command(for: .cancelledWrites([])) == nil)
        #expect(ClientReplay.command(for: .writeLongValue(0x0003, offset: 0, [1, 2])) == .writeLongValue(0x0003, offset: 0, [1, 2]))
    }
}
