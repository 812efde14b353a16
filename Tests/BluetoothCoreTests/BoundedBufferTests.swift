import BluetoothCore
import Testing

/// The one bounded buffer as a value: each state, each input, each loss policy. The
/// consumer is a name standing for a continuation; no task waits and no clock runs.
@Suite struct BoundedBufferTests {
    struct Failed: Error, Equatable {}

    /// A value that says how many were lost before it, like a notification.
    struct Reading: Equatable {
        var value: Int
        var lostBefore = 0
    }

    typealias Buffer = BoundedBuffer<Reading, String, Failed>
    typealias Plain = BoundedBuffer<Int, String, Failed>

    static let carrying = LossCarrier<Reading>(carry: { $0.lostBefore += $1; return true }, carried: { $0.lostBefore })
    /// Like MQTT's stream: a gap is an element of its own (negative: that many lost).
    static let marking = LossCarrier<Int>(marker: { -$0 })

    static func readings(_ values: Int...) -> [Reading] { values.map { Reading(value: $0) } }

    func elements<E, C, F>(_ outcome: BoundedBuffer<E, C, F>.TakeOutcome) -> [E]? {
        if case .elements(let batch) = outcome { return batch }
        return nil
    }

    // MARK: Buffering

    @Test func belowTheLimitPushesQueueAndSayWhetherRoomIsLeft() {
        var b = Buffer(capacity: 2, carrier: Self.carrying)
        guard case .queued(hasRoom: true) = b.push(Reading(value: 1)) else { Issue.record("no room"); return }
        guard case .queued(hasRoom: false) = b.push(Reading(value: 2)) else { Issue.record("room"); return }
        #expect(b.count == 2 && b.isOpen && !b.producerMayGoOn)
        #expect(elements(b.take(orWait: "c")) == Self.readings(1, 2))
        #expect(b.producerMayGoOn)
    }

    @Test func pauseProducerNeverDropsPastTheLimit() {
        var b = Buffer(capacity: 1, carrier: Self.carrying)
        for v in 1...3 {
            guard case .queued(hasRoom: false) = b.push(Reading(value: v), whenFull: .pauseProducer) else {
                Issue.record("push \(v)")
                return
            }
        }
        #expect(b.count == 3, "what one read carried is kept")
        #expect(elements(b.take(orWait: nil)) == Self.readings(1, 2, 3))
    }

    @Test func dropNewestCountsAndTheNextAdmittedCarriesTheCount() {
        var b = Buffer(capacity: 2, carrier: Self.carrying)
        _ = b.push(Reading(value: 1), whenFull: .dropNewest)
        _ = b.push(Reading(value: 2), whenFull: .dropNewest)
        for v in 3...5 {
            guard case .dropped = b.push(Reading(value: v), whenFull: .dropNewest) else { Issue.record("kept \(v)"); return }
        }
        #expect(elements(b.take(orWait: nil)) == Self.readings(1, 2), "the gap is after what waited")
        _ = b.push(Reading(value: 6), whenFull: .dropNewest)
        #expect(elements(b.take(orWait: nil)) == [Reading(value: 6, lostBefore: 3)])
    }

    @Test func dropNewestWithAMarkerPutsTheGapInPlaceEvenWithNothingAfterIt() {
        var b = Plain(capacity: 2, carrier: Self.marking)
        for v in 1...5 { _ = b.push(v, whenFull: .dropNewest) }
        #expect(elements(b.take(orWait: nil)) == [1, 2, -3], "the consumer hears of 3, 4, 5 without waiting for 6")
        _ = b.push(6, whenFull: .dropNewest)
        _ = b.push(7, whenFull: .dropNewest)
        _ = b.push(8, whenFull: .dropNewest)
        _ = b.push(9, whenFull: .dropNewest)
        #expect(elements(b.take(orWait: nil)) == [6, 7, -2])
    }

    @Test func dropNewestWithoutACarrierCountsForTakeLost() {
        var b = Plain(capacity: 1)
        _ = b.push(1, whenFull: .dropNewest)
        _ = b.push(2, whenFull: .dropNewest)
        guard case .queued = b.push(3, limit: 2, whenFull: .dropNewest) else { Issue.record("a higher limit admits"); return }
        _ = b.push(4, limit: 2, whenFull: .dropNewest)
        #expect(elements(b.take(orWait: nil)) == [1, 3])
        #expect(b.takeLost() == 2)
        #expect(b.takeLost() == 0)
    }

    @Test func stopRefusesAndQueuesNothing() {
        var b = Plain(capacity: 1)
        _ = b.push(1, whenFull: .stop)
        guard case .refused = b.push(2, whenFull: .stop) else { Issue.record("queued"); return }
        #expect(b.count == 1 && b.takeLost() == 0, "refused, not dropped: the producer stops loudly")
    }

    // MARK: Consumer waiting

    @Test func aWaitingConsumerGetsTheNextPushAtOnce() {
        var b = Plain(capacity: 4)
        guard case .waiting = b.take(orWait: "c") else { Issue.record("did not wait"); return }
        #expect(b.count == 0 && b.producerMayGoOn)
        guard case .end(nil) = b.take(orWait: "second") else { Issue.record("a second consumer waited"); return }
        guard case .resume(let consumer, let batch) = b.push(7) else { Issue.record("not handed over"); return }
        #expect(consumer == "c" && batch == [7])
        guard case .buffering = b.state else { Issue.record("not buffering"); return }
    }

    @Test func aLookingTakeKeepsNoConsumer() {
        var b = Plain(capacity: 4)
        guard case .waiting = b.take(orWait: nil), case .buffering = b.state else { Issue.record("kept"); return }
    }

    @Test func cancellingHandsTheConsumerBack() {
        var b = Plain(capacity: 4)
        _ = b.take(orWait: "c")
        let other = b.cancelWaiting { $0 == "another" }
        #expect(other == nil, "another consumer's cancellation leaves this one waiting")
        guard case .consumerWaiting("c", lost: 0) = b.state else { Issue.record("stopped waiting"); return }
        let cancelled = b.cancelWaiting { $0 == "c" }
        #expect(cancelled == "c")
        #expect(b.cancelWaiting() == nil)
        guard case .queued = b.push(1) else { Issue.record("not queued"); return }
    }

    @Test func aRecycledBatchIsTheStorageOfTheNextOne() {
        var b = Plain(capacity: 8)
        for v in 1...4 { _ = b.push(v) }
        guard var batch = elements(b.take(orWait: nil)) else { Issue.record("nothing taken"); return }
        #expect(batch == [1, 2, 3, 4])
        let storage = batch.withUnsafeBufferPointer { $0.baseAddress }
        batch.removeAll(keepingCapacity: true)
        b.recycle(&batch)
        #expect(batch.capacity == 0, "the storage went to the buffer")
        _ = b.push(5)
        _ = b.push(6)
        guard var next = elements(b.take(orWait: nil)) else { Issue.record("nothing taken"); return }
        #expect(next == [5, 6])
        #expect(next.withUnsafeBufferPointer { $0.baseAddress } == storage, "built in the recycled storage")
        // A waiting consumer's batch is built in it too.
        next.removeAll(keepingCapacity: true)
        b.recycle(&next)
        guard case .waiting = b.take(orWait: "c"), case .resume(_, let handed) = b.push(7) else {
            Issue.record("not handed over")
            return
        }
        #expect(handed == [7] && handed.withUnsafeBufferPointer { $0.baseAddress } == storage)
    }

    @Test func aBatchStillInUseIsNotRecycled() {
        var b = Plain(capacity: 8)
        var kept = [1, 2]
        b.recycle(&kept)
        #expect(kept == [1, 2], "only an emptied batch is kept")
    }

    // MARK: Overflowing

    @Test func afterAStallTheOldestGoAndTheNextOldestCarriesTheCount() {
        var b = Buffer(capacity: 3, carrier: Self.carrying)
        let early = b.stalled()
        #expect(!early, "not full: nothing to give up on")
        for v in 1...3 { _ = b.push(Reading(value: v)) }
        #expect(!b.producerMayGoOn)
        let stalled = b.stalled()
        #expect(stalled)
        #expect(b.producerMayGoOn, "overflowing: the producer goes on")
        for v in 4...5 {
            guard case .queuedDroppingOldest = b.push(Reading(value: v)) else { Issue.record("push \(v)"); return }
        }
        #expect(elements(b.take(orWait: nil)) == [Reading(value: 3, lostBefore: 2), Reading(value: 4), Reading(value: 5)])
        guard case .buffering = b.state else { Issue.record("still overflowing after a take"); return }
        for v in 6...9 { _ = b.push(Reading(value: v)) }
        #expect(b.count == 4, "back to pausing, not dropping")
    }

    @Test func inABufferOfOneTheNewValueCarriesEveryLoss() {
        var b = Buffer(capacity: 1, carrier: Self.carrying)
        _ = b.push(Reading(value: 1))
        _ = b.stalled()
        for v in 2...4 { _ = b.push(Reading(value: v)) }
        #expect(elements(b.take(orWait: nil)) == [Reading(value: 4, lostBefore: 3)])
    }

    @Test func overflowingStillDropsNewestAndRefusesByPolicy() {
        var b = Plain(capacity: 1)
        _ = b.push(1)
        _ = b.stalled()
        guard case .dropped = b.push(2, whenFull: .dropNewest), case .refused = b.push(3, whenFull: .stop) else {
            Issue.record("policy ignored")
            return
        }
        #expect(b.takeLost() == 1)
    }

    // MARK: Finished

    @Test func finishingHandsAWaitingConsumerTheLastElementThenTheFailureOnce() {
        var b = Plain(capacity: 2)
        _ = b.take(orWait: "c")
        let resumed = b.finish(last: 0, failure: Failed())
        #expect(resumed?.0 == "c" && resumed?.1 == [0])
        #expect(!b.isOpen && b.producerMayGoOn)
        guard case .closed = b.push(9) else { Issue.record("queued after finish"); return }
        guard case .end(let failure?) = b.take(orWait: "c"), failure == Failed() else { Issue.record("no failure"); return }
        guard case .end(nil) = b.take(orWait: "c") else { Issue.record("failure twice"); return }
        #expect(b.finish() == nil, "once")
    }

    @Test func whatWaitsIsTakenBeforeTheEnd() {
        var b = Plain(capacity: 2)
        _ = b.push(1)
        #expect(b.finish(last: 2) == nil)
        #expect(elements(b.take(orWait: "c")) == [1, 2])
        guard case .end(nil) = b.take(orWait: "c") else { Issue.record("no end"); return }
    }

    @Test func finishingWakesAWaitingConsumerWithNothingSoItSeesTheEnd() {
        var b = Plain(capacity: 2)
        _ = b.take(orWait: "c")
        let resumed = b.finish()
        #expect(resumed?.0 == "c" && resumed?.1 == [])
    }

    // MARK: Terminated

    @Test func aConsumerThatLeftDropsEverythingAndIsToldOnce() {
        var b = Plain(capacity: 2)
        _ = b.push(1)
        let first = b.terminate(), second = b.terminate()
        #expect(first && !second)
        #expect(b.count == 0 && !b.isOpen && b.producerMayGoOn)
        guard case .closed = b.push(2), case .end(nil) = b.take(orWait: "c") else { Issue.record("still open"); return }
        #expect(b.finish(last: 3) == nil)
    }
}
