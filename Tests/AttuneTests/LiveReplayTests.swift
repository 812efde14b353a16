import Attune
import Foundation
import Replay
import Testing

/// `LiveReplay` runs a captured central's procedures against a live peripheral through
/// our central. Here the live peripheral is the captured one served again
/// (`CapturedPeripheral` on the memory radio), so the answers should be the captured
/// server's, except where the served recording cannot be the device.
@Suite("Live replay")
struct LiveReplayTests {
    static let fixture = CapturedPeripheralTests.fixture

    static func connect(to served: ServedCapture, on radio: MemoryRadio) async throws -> (CentralManager, Peripheral) {
        let central = CentralManager(transport: .memory(radio))
        let name = served.peripheral.localName
        let ad = try await first(try central.scan(), "the recording's advertisement") { $0.localName == name }
        let peripheral = central.peripheral(for: ad)
        try await central.connect(peripheral, timeout: hangGuard)
        return (central, peripheral)
    }

    @Test(.timeLimit(.minutes(10)))
    func theKernelFixtureAgainstItsOwnRecording() async throws {
        let recording = try CapturedPeripheral(capture: Self.fixture)
        let radio = MemoryRadio()
        let served = try await recording.start(on: .memory(radio), speed: 1000)
        let (central, peripheral) = try await Self.connect(to: served, on: radio)
        let conversation = recording.script.conversation
        let outcomes = await LiveReplay.run(conversation, against: peripheral)
        func record(_ o: LiveReplay.Outcome) -> Int { o.run.procedure.requests.first.map { conversation.pdus[$0].frame.recordIndex } ?? -1 }
        let verdicts = Dictionary(grouping: outcomes, by: \.verdict).mapValues(\.count)
        #expect(outcomes.count == 45)
        #expect(verdicts[.matched] == 38, "\(verdicts)")
        // Exchange MTU (the connection made its own) and the two cancelled prepared writes,
        // which our client has no command for.
        #expect(outcomes.filter { $0.verdict == .notReplayed }.map(record) == [67, 235, 335])
        #expect(verdicts[.notComparable] == nil)
        // What a served recording cannot be: the captured server (BlueZ) applied the part
        // of a write it refused, and hid a service for a while (Service Changed at 400).
        let diverged = outcomes.filter { $0.verdict == .diverged }
        #expect(diverged.map(record) == [329, 347, 404, 422])
        #expect(diverged.map(\.cause) == [.refusedWriteChangedValue(record: 311, handle: 0x0003),
                                          .followsDivergence(record: 335, handle: 0x0003),
                                          .databaseChanged(serviceChangedAt: 400), .databaseChanged(serviceChangedAt: 400)])
        // The captured answer beside the live one: the hidden service's empty discovery.
        #expect(diverged[2].captured == .success(.services([])))
        if case .success(.services(let live))? = diverged[2].live {
            #expect(live.map(\.uuid) == [BluetoothUUID(0x180D)])
        } else {
            Issue.record("live discovery failed: \(String(describing: diverged[2].live))")
        }
        let times = outcomes.filter { $0.live != nil }.map(\.duration)
        print("live replay against the recording: \(times.count) procedures in \(times.reduce(Duration.zero, +)), slowest \(times.max() ?? Duration.zero)")
        // Every procedure run took time on the live link. No bound above: a loaded machine
        // stretched one to 5.9 s (fresh run 5), and a procedure that waited out a timeout
        // would not have matched, which the verdicts above check.
        #expect(outcomes.filter { $0.live != nil }.allSatisfy { $0.duration > .zero })
        await central.cancelConnection(peripheral)
        await served.stop()
    }
}
