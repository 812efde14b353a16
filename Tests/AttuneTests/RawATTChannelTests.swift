import Attune
import Testing
import WaitTestSupport

/// ``RawATTChannel`` carries PDUs both ways untouched: what a GATT client would never
/// send reaches the server, and every answer comes back as bytes.
@Suite struct RawATTChannelTests {
    @Test func anUnknownRequestGoesOutAndItsErrorComesBack() async throws {
        let radio = MemoryRadio()
        let demo = try await DemoPeripheral.start(on: .memory(radio))
        let channel = try await RawATTChannel.open(on: .memory(radio), to: BluetoothAddress(rawValue: 0xC0_00_00_00_00_01),
                                                   timeout: hangGuard)
        channel.send([0x3F])
        let answer = try await within("the answer to an unknown request") { () async -> [RawATTChannel.Event] in
            await channel.receive()
        }
        #expect(answer == [.pdu([0x01, 0x3F, 0x00, 0x00, 0x06])], "Request Not Supported naming opcode 0x3F and handle 0")
        channel.close()
        let end = try await within("the end of the link") { () async -> [RawATTChannel.Event] in
            var events: [RawATTChannel.Event] = []
            while true {
                let batch = await channel.receive()
                events += batch
                if batch.isEmpty || events.contains(where: { if case .closed = $0 { true } else { false } }) { return events }
            }
        }
        #expect(end.contains { if case .closed = $0 { true } else { false } })
        await demo.manager.stopAdvertising()
    }
}
