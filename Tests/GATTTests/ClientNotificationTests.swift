import ATT
import Testing
@testable import GATT

@Suite("GATTNotification")
struct ClientNotificationTests {
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
