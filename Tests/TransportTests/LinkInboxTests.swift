import Testing
import Transport

/// The bounded, counted hand-off for readers that must not pause.
@Suite("LinkInbox: pushOrCount")
struct LinkInboxTests {
    @Test("past its limit an element is dropped and counted, once")
    func dropsAndCounts() async {
        let inbox = LinkInbox<Int>(capacity: 2)
        #expect(inbox.pushOrCount(1, limit: 2))
        #expect(inbox.pushOrCount(2, limit: 2))
        #expect(!inbox.pushOrCount(3, limit: 2))
        #expect(inbox.pushOrCount(4, limit: 3), "a higher limit admits past the capacity")
        #expect(!inbox.pushOrCount(5, limit: 3))
        #expect(await inbox.take() == [1, 2, 4])
        #expect(inbox.takeLostCount() == 2)
        #expect(inbox.takeLostCount() == 0)
    }

    @Test("a waiting owner gets the element at once; after finish nothing is counted")
    func waitingOwnerAndFinish() async {
        let inbox = LinkInbox<Int>(capacity: 1)
        async let batch = inbox.take()
        // The owner may not be waiting yet: either way the element is taken, not counted.
        #expect(inbox.pushOrCount(7, limit: 1))
        #expect(await batch == [7])
        inbox.finish(0)
        #expect(!inbox.pushOrCount(8, limit: 1))
        #expect(inbox.takeLostCount() == 0)
        #expect(await inbox.take() == [0])
    }
}
