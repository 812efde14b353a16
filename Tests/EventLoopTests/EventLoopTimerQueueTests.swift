import Testing
@testable import EventLoop

@Suite struct EventLoopTimerQueueTests {
    @Test func popsInDeadlineOrder() {
        var queue = EventLoopTimerQueue<Int>()
        var generator = SystemRandomNumberGenerator()
        let deadlines = (0..<500).map { _ in UInt64.random(in: 0..<10_000, using: &generator) }
        for (id, deadline) in deadlines.enumerated() { queue.insert(id: UInt64(id), deadline: deadline, action: id) }
        let popped = queue.popExpired(now: .max)
        #expect(popped.map { deadlines[$0] } == deadlines.sorted())
        #expect(queue.isEmpty)
    }

    @Test func skipsRemovedTimersAndStaysBounded() {
        var queue = EventLoopTimerQueue<Int>()
        for round in 0..<10_000 {
            queue.insert(id: UInt64(round), deadline: UInt64(1_000 + round), action: round)
            if round % 100 != 0 { queue.remove(id: UInt64(round)) }
        }
        #expect(queue.count == 100)
        #expect(queue.earliestDeadline() == 1_000)
        #expect(queue.popExpired(now: 1_100).count == 2)
        #expect(queue.popExpired(now: .max).count == 98)
    }
}
