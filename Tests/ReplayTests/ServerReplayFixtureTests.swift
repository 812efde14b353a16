import ATT
import Capture
import FixtureTestSupport
import GATT
import Replay
import Testing

/// Every fixture replayed against our GATT server, serving the database rebuilt from the
/// capture. The divergences expected are listed here with their causes; any other
/// divergence, or one without a cause, fails.
@Suite struct ServerReplayFixtureTests {
    /// Expected divergences per fixture: (record of the request, its cause).
    static let expected: [String: [(Int, DivergenceCause)]] = [
        "kernel/bluez_hr_mtu517.btsnoop": [
            // btgatt-server's Heart Rate Control Point accepts only 0x01.
            (203, .applicationRejectedValue(.invalidAttributeValueLength)),
            // The README's first BlueZ quirk: 511 bytes refused, header counted.
            (235, .prepareWriteHeaderCounted(offset: 0, length: 511)),
            // The README's second quirk: Device Name long write truncated at the offset.
            (317, .longWriteRejectedAtOffset(10)),
            (329, .followsDivergence(record: 235, handle: 0x0003)),
            (347, .followsDivergence(record: 235, handle: 0x0003)),
            // btgatt-server indicated Heart Rate Measurement, declared notify-only.
            (385, .pushNotDeclared(handle: 0x000D, indication: true, properties: 0x10)),
            // The heart-rate service hidden, then shown (Service Changed).
            (404, .databaseChanged(serviceChangedAt: 400)),
            (422, .databaseChanged(serviceChangedAt: 400)),
        ],
        "kernel/gatttool_vs_btgatt.btsnoop": [
            // btgatt-server answered Write Response to the Device Name but kept the old name.
            (461, .writeNotKept(handle: 0x0003, record: 373)),
        ],
    ]

    /// Matched requests and pushes per fixture, as `attune replay --as server` reports
    /// them. Before our server pushed the captured notifications and indications the
    /// requests alone matched: 10, 10, 12, 12, 49, 49, 47 and 19; every push but one
    /// (385 above) now matches too.
    static let matched: [String: Int] = [
        "h4_rawcentral_bumble.btsnoop": 10, "h4_rawcentral_external.btsnoop": 10,
        "h4_rawperipheral_bumble.btsnoop": 15, "h4_rawperipheral_external.btsnoop": 15,
        "inproc_mtu185_central.btsnoop": 58, "inproc_mtu185_peripheral.btsnoop": 58,
        "kernel/bluez_hr_mtu517.btsnoop": 58, "kernel/gatttool_vs_btgatt.btsnoop": 19,
    ]

    /// What is still not replayed: only the confirmation of the indication ours did not send.
    static let notReplayed: [String: Int] = ["kernel/bluez_hr_mtu517.btsnoop": 1]

    static func replay(_ name: String) throws -> [ReplayReport] {
        var session = try ReplaySession(path: Fixtures.capturePath(name), side: .server)
        var reports: [ReplayReport] = []
        while let step = try session.next() { reports.append(step.report) }
        return reports
    }

    @Test(arguments: Fixtures.captures)
    func replayAsServer(_ name: String) throws {
        let reports = try Self.replay(name)
        let divergences = reports.flatMap(\.divergences)
        let matched = reports.reduce(0) { $0 + $1.matched }
        #expect(matched == Self.matched[name], "\(name)")
        #expect(reports.reduce(0) { $0 + $1.notReplayed } == Self.notReplayed[name] ?? 0, "\(name)")
        let expected = Self.expected[name] ?? []
        #expect(divergences.map(\.input.frame.recordIndex) == expected.map(\.0), "\(name)")
        #expect(divergences.map(\.cause) == expected.map(\.1), "\(name)")
        print("replay as server: \(name): \(matched) matched, \(divergences.count) diverged, \(divergences.filter { $0.cause != nil }.count) explained")
    }
}
