import BluetoothCore
import Testing

/// The one deadline timer as a value: which deadline it keeps, which wake-up it asks
/// its owner to start, and which it hands back to cancel. The handles here are plain
/// numbers standing for a task or a loop timer; no clock runs.
@Suite struct DeadlineTimerTests {
    /// Starts numbered wake-ups and remembers for which deadline each was started.
    struct Starter {
        var started: [MonotonicTime] = []
        mutating func start(_ time: MonotonicTime) -> Int {
            started.append(time)
            return started.count
        }
    }

    @Test func anIdleTimerStartsAWakeUpForTheFirstDeadline() {
        var timer = DeadlineTimer<Int>()
        var starter = Starter()
        #expect(timer.deadline == nil)
        #expect(timer.arm(.seconds(5)) { starter.start($0) } == nil, "nothing to cancel")
        #expect(starter.started == [.seconds(5)])
        #expect(timer.deadline == .seconds(5))
    }

    @Test func aLaterOrEqualDeadlineKeepsTheArmedWakeUp() {
        var timer = DeadlineTimer<Int>()
        var starter = Starter()
        timer.arm(.seconds(5)) { starter.start($0) }
        #expect(timer.arm(.seconds(5)) { starter.start($0) } == nil)
        #expect(timer.arm(.seconds(9)) { starter.start($0) } == nil)
        #expect(starter.started == [.seconds(5)], "no second wake-up")
        #expect(timer.deadline == .seconds(5))
    }

    @Test func anEarlierDeadlineReplacesTheArmedWakeUpAndHandsItBack() {
        var timer = DeadlineTimer<Int>()
        var starter = Starter()
        timer.arm(.seconds(5)) { starter.start($0) }
        #expect(timer.arm(.seconds(2)) { starter.start($0) } == 1, "the owner cancels wake-up 1")
        #expect(starter.started == [.seconds(5), .seconds(2)])
        guard case .armed(let at, let handle) = timer.state else {
            Issue.record("not armed")
            return
        }
        #expect(at == .seconds(2) && handle == 2)
    }

    @Test func afterItFiredTheNextDeadlineArmsAgainWhateverItIs() {
        var timer = DeadlineTimer<Int>()
        var starter = Starter()
        timer.arm(.seconds(5)) { starter.start($0) }
        timer.fired()
        #expect(timer.deadline == nil)
        #expect(timer.arm(.seconds(7)) { starter.start($0) } == nil)
        #expect(starter.started == [.seconds(5), .seconds(7)], "a later deadline arms once the wake-up is spent")
    }

    @Test func disarmHandsBackTheWakeUpOnce() {
        var timer = DeadlineTimer<Int>()
        var starter = Starter()
        #expect(timer.disarm() == nil)
        timer.arm(.seconds(1)) { starter.start($0) }
        #expect(timer.disarm() == 1)
        #expect(timer.disarm() == nil)
        #expect(timer.deadline == nil)
    }
}
