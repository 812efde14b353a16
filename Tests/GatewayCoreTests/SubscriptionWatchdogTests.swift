import Testing
import BluetoothCore
@testable import GatewayCore

@Suite("Subscription watchdog")
struct SubscriptionWatchdogTests {
    static let hr = DesiredSubscription(characteristic: BluetoothUUID(0x2A37))
    static let temp = DesiredSubscription(characteristic: BluetoothUUID(0x2A1C), indicate: true)

    @Test func everyReconnectWritesTheCCCDsAgain() {
        var w = SubscriptionWatchdog()
        _ = w.setDesired("hr1", [Self.hr, Self.temp], at: t(0))
        let both = [Self.hr, Self.temp].sorted()
        #expect(w.connected("hr1", at: t(1)).a == [.writeCCCDs("hr1", both)])
        _ = w.disconnected("hr1", at: t(2))
        #expect(w.connected("hr1", at: t(3)).a == [.writeCCCDs("hr1", both)])
        let extra = DesiredSubscription(characteristic: BluetoothUUID(0x2A19))
        #expect(w.setDesired("hr1", [Self.hr, Self.temp, extra], at: t(4)).a == [.writeCCCDs("hr1", [extra])],
                "a new desired subscription on a live link is written at once")
    }

    @Test func silenceOfFiveIntervalsResubscribesOnce() {
        var w = SubscriptionWatchdog()
        _ = w.setDesired("hr1", [Self.hr], at: t(0))
        _ = w.connected("hr1", at: t(0))
        for i in 1...10 { _ = w.notification("hr1", Self.hr, at: t(Double(i))) }
        #expect(w.learnedInterval(of: "hr1", Self.hr).map(secs) == 1)
        #expect(w.tick(at: t(14.9)).a == [])
        #expect(w.tick(at: t(15)).a == [.resubscribe("hr1", Self.hr)])
        #expect(w.tick(at: t(100)).a == [], "once per silence")
        #expect(w.tick(at: t(100)).nextDeadline == nil)
        _ = w.notification("hr1", Self.hr, at: t(101))
        #expect(w.learnedInterval(of: "hr1", Self.hr).map(secs) == 1, "the silence is not an interval")
        #expect(w.tick(at: t(105.9)).a == [])
        #expect(w.tick(at: t(106)).a == [.resubscribe("hr1", Self.hr)], "a new silence alarms again")
    }

    @Test func aBatchOfNotificationsIsTheSameAsEachInTurn() {
        func watched() -> SubscriptionWatchdog {
            var w = SubscriptionWatchdog()
            for name in ["a", "b"] {
                _ = w.setDesired(DeviceID(name), [Self.hr], at: t(0))
                _ = w.connected(DeviceID(name), at: t(0))
            }
            return w
        }
        var single = watched(), batched = watched()
        let times = (1...10).map { t(Double($0)) }, slower = (1...5).map { t(Double($0) * 2) }
        for time in times { _ = single.notification("a", Self.hr, at: time) }
        for time in slower { _ = single.notification("b", Self.hr, at: time) }
        let step = batched.notifications([("a", Self.hr, times), ("b", Self.hr, slower)])
        #expect(step.a == [])
        #expect(step.nextDeadline == single.nextDeadline && step.nextDeadline == t(15), "a's silence alarm, 5 × 1 s after 10 s")
        #expect(batched.learnedInterval(of: "a", Self.hr) == single.learnedInterval(of: "a", Self.hr))
        #expect(batched.learnedInterval(of: "b", Self.hr).map(secs) == 2)
        #expect(batched.tick(at: t(15)).a == single.tick(at: t(15)).a)
    }

    @Test func noAlarmBeforeTheIntervalIsLearnedOrWithoutALink() {
        var w = SubscriptionWatchdog()
        _ = w.setDesired("hr1", [Self.hr], at: t(0))
        _ = w.connected("hr1", at: t(0))
        _ = w.notification("hr1", Self.hr, at: t(1))
        _ = w.notification("hr1", Self.hr, at: t(2))
        #expect(w.tick(at: t(1000)).a == [], "one gap is not a learned interval")
        _ = w.notification("hr1", Self.hr, at: t(1001))
        _ = w.notification("hr1", Self.hr, at: t(1002))
        _ = w.notification("hr1", Self.hr, at: t(1003))
        _ = w.disconnected("hr1", at: t(1004))
        #expect(w.tick(at: t(2000)).a == [], "no link, nothing to re-subscribe")
        _ = w.connected("hr1", at: t(2000))
        #expect(w.tick(at: t(2004.9)).a == [], "silence counts from the reconnect")
        #expect(w.tick(at: t(2005)).a == [.resubscribe("hr1", Self.hr)])
    }

    @Test func aFastSensorIsNotResubscribedForAHiccup() {
        var w = SubscriptionWatchdog()
        _ = w.setDesired("f", [Self.hr], at: t(0))
        _ = w.connected("f", at: t(0))
        for i in 1...20 { _ = w.notification("f", Self.hr, at: t(Double(i) * 0.1)) }
        #expect(w.tick(at: t(2 + 1.9)).a == [], "5 × 0.1 s is under the 2 s minimum")
        #expect(w.tick(at: t(4)).a == [.resubscribe("f", Self.hr)])
    }
}
