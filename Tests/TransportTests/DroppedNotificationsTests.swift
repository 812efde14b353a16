import ATT
import Testing
@testable import Transport

/// Which characteristic a PDU dropped at a link's inbox was a value of: the count its
/// next notification carries in `lostBefore`.
@Suite struct DroppedNotificationsTests {
    @Test func notificationsAndIndicationsCountOnTheirHandle() {
        var dropped = DroppedNotifications()
        dropped.count([0x1B, 0x2A, 0x00, 1, 2])
        dropped.count([0x1B, 0x2A, 0x00])
        dropped.count([0x1D, 0x10, 0x01, 9])
        #expect(dropped.byHandle == [AttributeHandle(0x002A): 2, AttributeHandle(0x0110): 1])
        #expect(dropped.take(for: AttributeHandle(0x002A)) == 2)
        #expect(dropped.take(for: AttributeHandle(0x002A)) == 0, "told once")
        #expect(dropped.take(for: AttributeHandle(0x0110)) == 1)
        #expect(dropped.isEmpty)
    }

    @Test func aMultipleHandleNotificationCountsOnEveryHandleItCarries() {
        var dropped = DroppedNotifications()
        // Handle 0x0003 with 2 bytes, then handle 0x0005 with 1 byte.
        dropped.count([0x23, 0x03, 0x00, 0x02, 0x00, 0xAA, 0xBB, 0x05, 0x00, 0x01, 0x00, 0xCC])
        #expect(dropped.byHandle == [AttributeHandle(3): 1, AttributeHandle(5): 1])
    }

    @Test func unreadableNotificationsCountOnTheLinksNextNotification() {
        var dropped = DroppedNotifications()
        dropped.count([0x1B, 0x01])
        dropped.count([0x23, 0x01])
        dropped.count([0x1B, 0x07, 0x00, 1])
        #expect(dropped.unattributed == 2)
        #expect(dropped.take(for: AttributeHandle(9)) == 2, "any characteristic's next value carries them")
        #expect(dropped.take(for: AttributeHandle(7)) == 1)
    }

    @Test func otherPDUsAreNoStreamsValues() {
        var dropped = DroppedNotifications()
        dropped.count([0x52, 0x03, 0x00, 1])  // Write Command
        dropped.count([0x0A, 0x03, 0x00])     // Read Request
        dropped.count([])
        #expect(dropped.isEmpty)
    }

    @Test func countsFromSeveralTakesAddUp() {
        var a = DroppedNotifications()
        a.count([0x1B, 0x03, 0x00])
        var b = DroppedNotifications()
        b.count([0x1B, 0x03, 0x00])
        b.count([0x1B, 0x01])
        a.merge(b)
        #expect(a.byHandle == [AttributeHandle(3): 2] && a.unattributed == 1)
    }
}
