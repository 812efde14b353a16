import ATT
import Testing
@testable import GATT

@Suite("GATTNotificationStream")
struct ClientNotificationStreamTests {
    @Test func deliversInOrderAcrossBatchesThenEnds() async {
        let stream = GATTNotificationStream()
        let consumer = Task {
            var handles: [UInt16] = []
            for await n in stream { handles.append(n.handle.rawValue) }
            return handles
        }
        for b in 0..<10 {
            stream.yield(contentsOf: (0..<7).map { GATTNotification(handle: AttributeHandle(UInt16(b * 7 + $0 + 1)), value: [][...]) })
            await Task.yield()
        }
        stream.finish()
        #expect(await consumer.value == Array(1...70))
    }

    @Test func boundedBufferDropsTheOldest() async {
        let stream = GATTNotificationStream(bufferLimit: 4)
        for i in 1...10 { stream.yield(GATTNotification(handle: AttributeHandle(UInt16(i)), value: [][...])) }
        stream.finish()
        var got: [UInt16] = []
        for await n in stream { got.append(n.handle.rawValue) }
        #expect(got == [7, 8, 9, 10])
        #expect(stream.droppedCount == 6)
    }

    @Test func clientEventsBecomeNotifications() {
        var h = ClientHarness()
        h.receive(hex: "1b0300aa")
        h.receive(hex: "1d0400bb")
        #expect(h.events.compactMap(GATTNotification.init) == [
            GATTNotification(handle: 3, value: [0xAA][...]),
            GATTNotification(handle: 4, value: [0xBB][...], isIndication: true),
        ])
    }
}
