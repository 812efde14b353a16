import Testing
import BluetoothCore
@testable import GatewayCore

@Suite("Availability")
struct AvailabilityTrackerTests {
    @Test func aOneSecondAdvertiserGoesOfflineAtTheSixtySecondFloor() {
        var a = AvailabilityTracker()
        a.register("s", followsLink: false)
        #expect(a.advertisement(from: "s", at: t(0)).a == [.online("s")])
        for i in 1...20 { #expect(a.advertisement(from: "s", at: t(Double(i))).a == [], "online is sent once") }
        #expect(a.learnedInterval(of: "s").map(secs) == 1)
        #expect(a.tick(at: t(79.9)).a == [])
        let last = a.tick(at: t(79.9))
        #expect(last.nextDeadline == t(80), "3 × 1 s is under the floor: 60 s after the last packet")
        #expect(a.tick(at: t(80)).a == [.offline("s")])
        #expect(a.tick(at: t(500)).a == [], "offline is sent once")
        #expect(a.advertisement(from: "s", at: t(600)).a == [.online("s")])
        #expect(a.learnedInterval(of: "s").map(secs) == 1, "the offline stretch is not an interval")
    }

    @Test func aSixtySecondAdvertiserGoesOfflineAfterThreeIntervals() {
        var a = AvailabilityTracker()
        a.register("slow", followsLink: false)
        _ = a.advertisement(from: "slow", at: t(0))
        #expect(a.tick(at: t(59)).a == [], "no flap before the second packet")
        for i in 1...4 { _ = a.advertisement(from: "slow", at: t(Double(i) * 60)) }
        #expect(a.timeout(of: "slow").map(secs) == 180)
        #expect(a.tick(at: t(240 + 179)).a == [])
        #expect(a.tick(at: t(240 + 180)).a == [.offline("slow")])
    }

    @Test func theIntervalIgnoresDuplicatesAndOutliers() {
        var a = AvailabilityTracker()
        a.register("d", followsLink: false)
        var now = 0.0
        for i in 0..<12 {
            _ = a.advertisement(from: "d", at: t(now))
            _ = a.advertisement(from: "d", at: t(now + 0.005))   // heard by a second adapter
            now += i == 5 ? 95 : 30                                 // one long miss
        }
        #expect(a.learnedInterval(of: "d").map(secs) == 30)
        #expect(a.timeout(of: "d").map(secs) == 90)
    }

    @Test func aKeepDeviceFollowsItsLink() {
        var a = AvailabilityTracker()
        a.register("k", followsLink: true)
        #expect(a.advertisement(from: "k", at: t(0)).a == [], "advertising is not being connected")
        #expect(a.connected("k", at: t(1)).a == [.online("k")])
        #expect(a.tick(at: t(1000)).a == [], "no timeout on a link")
        #expect(a.disconnected("k", at: t(1001)).a == [.offline("k")])
        #expect(a.advertisement(from: "k", at: t(1002)).a == [])
        #expect(a.connected("k", at: t(1003)).a == [.online("k")])
    }

    @Test func aPollDeviceBetweenLinksFollowsItsAdvertising() {
        var a = AvailabilityTracker()
        a.register("p", followsLink: false)
        #expect(a.connected("p", at: t(0)).a == [.online("p")])
        #expect(a.disconnected("p", at: t(5)).a == [], "a poll disconnect is not an absence")
        #expect(a.tick(at: t(5 + 179)).a == [])
        #expect(a.tick(at: t(5 + 180)).a == [.offline("p")], "nothing learned: the unlearned timeout")
    }

    @Test func unregisteredDevicesAreIgnored() {
        var a = AvailabilityTracker()
        #expect(a.advertisement(from: "x", at: t(0)).a == [])
        #expect(a.availability(of: "x") == nil)
    }
}
