import Testing
import BluetoothCore
@testable import GatewayCore

@Suite("Connection scheduler")
struct ConnectionSchedulerTests {
    // MARK: One pending connect

    @Test func onlyOneConnectIsPendingWhileOthersWait() {
        var s = scheduler()
        #expect(s.add("a", policy: .keep, at: t(0)).a == [.connect("a")])
        #expect(s.add("b", policy: .keep, at: t(0)).a == [], "b waits for a's attempt to end")
        #expect(s.tick(at: t(5)).a == [])
        #expect(s.connected(handle: 1, device: "a", at: t(6)).a == [.connect("b")])
    }

    /// Random inputs against a model controller: the scheduler never sends LE Create
    /// Connection while one is outstanding, never holds more links than allowed, and
    /// never sends a connect while the slots are full.
    @Test(arguments: [1, 2, 3, 42, 1234] as [UInt64])
    func neverTwoPendingConnectsUnderRandomEvents(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var s = ConnectionScheduler(configuration: SchedulerConfiguration(maxConnections: 2), random: SplitMix64(seed: seed))
        let names: [DeviceID] = ["k1", "k2", "p1", "o1", "o2"]
        var now = 0.0
        var outstanding: DeviceID?   // the model controller's pending command
        var up: [UInt16: DeviceID?] = [:]
        var nextHandle: UInt16 = 1
        func apply(_ step: GatewayStep<SchedulerAction>) {
            for action in step.actions {
                switch action {
                case .connect(let d):
                    #expect(outstanding == nil, "a second LE Create Connection while one is pending (seed \(seed))")
                    #expect(up.count < 2, "a connect with every slot held")
                    outstanding = d
                case .cancelConnect(let d):
                    #expect(outstanding == d)
                case .disconnect, .resetAdapter:
                    break
                }
            }
        }
        apply(s.add("k1", policy: .keep, at: t(now)))
        apply(s.add("k2", policy: .keep, at: t(now)))
        apply(s.add("p1", policy: .poll(every: .seconds(20)), at: t(now)))
        apply(s.add("o1", policy: .onDemand, at: t(now)))
        apply(s.add("o2", policy: .onDemand, at: t(now)))
        for _ in 0..<3000 {
            now += Double(rng.next() % 4000) / 1000
            switch rng.next() % 9 {
            case 0, 1:
                if let d = outstanding {
                    outstanding = nil
                    let h = nextHandle; nextHandle &+= 1
                    up[h] = d
                    apply(s.connected(handle: h, device: d, at: t(now)))
                }
            case 2:
                if outstanding != nil {
                    outstanding = nil
                    let reasons: [HCIReason] = [.connectionFailedToBeEstablished, .limitedResources, .commandDisallowed, .unknownConnectionIdentifier]
                    apply(s.connectFailed(reasons[Int(rng.next() % 4)], at: t(now)))
                }
            case 3:
                if let h = up.keys.sorted().first {
                    up[h] = nil
                    apply(s.disconnected(handle: h, reason: rng.next() % 2 == 0 ? .connectionTimeout : .localHostTerminated, at: t(now)))
                }
            case 4:
                apply(s.advertisement(from: names[Int(rng.next() % 5)], at: t(now)))
            case 5:
                apply(s.request(names[3 + Int(rng.next() % 2)], at: t(now)))
            case 6:
                apply(s.workDone(names[Int(rng.next() % 5)], at: t(now)))
            case 7 where up.count < 2:
                // An incoming link nobody asked for.
                let h = nextHandle; nextHandle &+= 1
                up[h] = .some(nil)
                apply(s.connected(handle: h, device: nil, at: t(now)))
            default:
                apply(s.tick(at: t(now)))
            }
            #expect(s.slotsUsed == up.count, "slots follow the HCI events exactly")
        }
    }

    @Test func aTimedOutConnectIsCancelledAndTheNextWaitsForTheCancelToComplete() {
        var s = scheduler()
        _ = s.add("a", policy: .keep, at: t(0))
        let b = s.add("b", policy: .keep, at: t(0))
        #expect(b.nextDeadline == t(10), "the attempt's own 10 s timeout")
        #expect(s.tick(at: t(9.999)).a == [])
        let timeout = s.tick(at: t(10))
        #expect(timeout.a == [.cancelConnect("a")])
        #expect(s.tick(at: t(12)).a == [], "no connect for b until the cancel's Connection Complete")
        #expect(s.pendingDevice == "a")
        #expect(s.connectFailed(.unknownConnectionIdentifier, at: t(12.5)).a == [.connect("b")])
        #expect(s.report(for: "a")?.lastFailure == .connectTimeout, "the timeout, not the cancel's 0x02, is a's failure")
        #expect(s.report(for: "a")?.link == .idle)
    }

    @Test func aCancelTheControllerNeverAnswersAsksForOneAdapterReset() {
        var s = scheduler()
        _ = s.add("a", policy: .keep, at: t(0))
        _ = s.tick(at: t(10))
        #expect(s.tick(at: t(14.9)).a == [])
        #expect(s.tick(at: t(15)).a == [.resetAdapter])
        #expect(s.tick(at: t(30)).a == [], "asked once")
        #expect(s.adapterReset(at: t(31)).a == [.connect("a")], "after the reset the next attempt may start")
    }

    @Test func theCancelRacingAConnectionKeepsTheLink() {
        var s = scheduler()
        _ = s.add("a", policy: .keep, at: t(0))
        _ = s.add("b", policy: .keep, at: t(0))
        _ = s.tick(at: t(10))
        // The link came up just before the cancel arrived.
        #expect(s.connected(handle: 7, device: "a", at: t(10.01)).a == [.connect("b")])
        #expect(s.report(for: "a")?.link == .connected(handle: 7))
    }

    // MARK: Slots

    @Test func slotsAreFreedOnlyByDisconnectionComplete() {
        var s = scheduler(max: 1)
        _ = s.add("a", policy: .keep, at: t(0))
        _ = s.connected(handle: 1, device: "a", at: t(1))
        #expect(s.add("b", policy: .keep, at: t(1)).a == [], "the one slot is held")
        // Removing a asks for the disconnect, but the slot stays held until it completes.
        #expect(s.remove("a", at: t(2)).a == [.disconnect(handle: 1, device: "a")])
        #expect(s.slotsUsed == 1)
        #expect(s.tick(at: t(100)).a == [])
        #expect(s.disconnected(handle: 1, reason: .localHostTerminated, at: t(101)).a == [.connect("b")])
    }

    @Test func aConnectWhoseCompletionNeverCameHoldsNoSlot() {
        var s = scheduler(max: 1)
        _ = s.add("a", policy: .keep, at: t(0))
        _ = s.add("b", policy: .keep, at: t(0))
        #expect(s.slotsUsed == 0 && s.slotsFree == 1, "a pending connect holds no slot")
        _ = s.tick(at: t(10))
        #expect(s.connectFailed(.unknownConnectionIdentifier, at: t(10.1)).a == [.connect("b")])
        #expect(s.slotsFree == 1)
    }

    @Test func anIncomingLinkHoldsASlot() {
        var s = scheduler(max: 1)
        #expect(s.connected(handle: 9, device: nil, at: t(0)).a == [])
        #expect(s.add("a", policy: .keep, at: t(0)).a == [], "the incoming link holds the only slot")
        #expect(s.disconnected(handle: 44, reason: .remoteUserTerminated, at: t(1)).a == [], "an unknown handle frees nothing")
        #expect(s.slotsUsed == 1)
        #expect(s.disconnected(handle: 9, reason: .remoteUserTerminated, at: t(2)).a == [.connect("a")])
    }

    // MARK: Backoff by reason

    @Test func failedToBeEstablishedRetriesSoon() {
        var s = scheduler()
        _ = s.add("a", policy: .keep, at: t(0))
        var now = 0.0
        for _ in 0..<3 {
            let step = s.connectFailed(.connectionFailedToBeEstablished, at: t(now))
            #expect(step.a == [])
            #expect(near(retryAt(s, "a"), now + 0.25), "0x3E retries after 0.25 s")
            #expect(near(step.nextDeadline, now + 0.25))
            now += 0.25
            #expect(s.tick(at: t(now)).a == [.connect("a")])
        }
    }

    @Test func supervisionTimeoutBacksOffExponentiallyAndAStableLinkEndsTheStreak() {
        var s = scheduler()
        _ = s.add("a", policy: .keep, at: t(0))
        var now = 0.0
        var handle: UInt16 = 1
        for expected in [0.25, 0.5, 1, 2, 4] {
            _ = s.connected(handle: handle, device: "a", at: t(now + 0.1))
            now += 1
            #expect(s.disconnected(handle: handle, reason: .connectionTimeout, at: t(now)).a == [])
            #expect(near(retryAt(s, "a"), now + expected), "wait \(expected) s after the drop")
            #expect(s.tick(at: t(now + expected - 0.01)).a == [])
            now += expected
            #expect(s.tick(at: t(now)).a == [.connect("a")])
            handle += 1
        }
        _ = s.connected(handle: handle, device: "a", at: t(now))
        #expect(s.disconnected(handle: handle, reason: .connectionTimeout, at: t(now + 40)).a == [])
        #expect(near(retryAt(s, "a"), now + 40.25), "a 40 s link was stable: the wait starts over")
    }

    @Test(arguments: [HCIReason.limitedResources, .commandDisallowed, .connectionLimitExceeded])
    func noRoomWaitsForASlotWithNoTimer(reason: HCIReason) {
        var s = scheduler()
        _ = s.add("p", policy: .poll(every: .seconds(600)), at: t(0))
        _ = s.connected(handle: 1, device: "p", at: t(1))
        #expect(s.add("k", policy: .keep, at: t(1)).a == [.connect("k")])
        let failed = s.connectFailed(reason, at: t(3))
        #expect(failed.a == [])
        #expect(s.report(for: "k")?.retry == .whenASlotFrees)
        #expect(failed.nextDeadline == t(61), "only p's work timeout is due; no retry timer for k")
        #expect(s.tick(at: t(50)).a == [])
        #expect(s.workDone("p", at: t(55)).a == [.disconnect(handle: 1, device: "p")])
        #expect(s.report(for: "k")?.retry == .whenASlotFrees, "asking for the disconnect frees nothing yet")
        #expect(s.disconnected(handle: 1, reason: .localHostTerminated, at: t(56)).a == [.connect("k")])
    }

    @Test func noRoomWithNoLinkUpBacksOffInsteadOfWaitingForever() {
        var s = scheduler()
        _ = s.add("k", policy: .keep, at: t(0))
        _ = s.connectFailed(.limitedResources, at: t(1))
        #expect(near(retryAt(s, "k"), 1.25))
        #expect(s.tick(at: t(1.25)).a == [.connect("k")])
    }

    @Test func theNextAdvertisementRetriesAtOnceOncePerStreak() {
        var s = scheduler()
        _ = s.add("a", policy: .keep, at: t(0))
        var now = 0.0
        for _ in 0..<12 {
            _ = s.tick(at: t(now))
            _ = s.tick(at: t(now + 10))                        // timed out
            now += 10
            _ = s.connectFailed(.unknownConnectionIdentifier, at: t(now))
            now = Double((retryAt(s, "a")?.nanoseconds ?? 0)) / 1e9
        }
        _ = s.tick(at: t(now))
        _ = s.tick(at: t(now + 10))
        now += 10
        _ = s.connectFailed(.unknownConnectionIdentifier, at: t(now))
        #expect(near(retryAt(s, "a"), now + 300), "13 failures: the 5 min cap")
        #expect(s.report(for: "a")?.failures == 13)
        let seen = s.advertisement(from: "a", at: t(now + 5))
        #expect(seen.a == [.connect("a")], "heard again: connect at once")
        #expect(near(seen.nextDeadline, now + 15), "the attempt's own timeout")
        #expect(s.report(for: "a")?.failures == 0)
        _ = s.tick(at: t(now + 15))
        _ = s.connectFailed(.unknownConnectionIdentifier, at: t(now + 15.3))
        #expect(near(retryAt(s, "a"), now + 15.55), "growth restarted from 0.25 s")
        _ = s.advertisement(from: "a", at: t(now + 15.4))
        #expect(near(retryAt(s, "a"), now + 15.55), "once per streak: a second advertisement changes nothing")
    }

    @Test func jitterStaysWithinTwentyPercentAndTheCap() {
        let b = SchedulerConfiguration().backoff
        var rng = SplitMix64(seed: 7)
        var lows = 0, highs = 0
        for failures in 1...40 {
            let base = min(300, 0.25 * Double(1 << UInt64(min(failures - 1, 20))))
            for _ in 0..<50 {
                let d = secs(b.delay(attempt: failures - 1, random: rng.nextFraction()))
                #expect(d >= base * 0.8 - 1e-9 && d <= min(300, base * 1.2) + 1e-9, "failure \(failures): \(d)")
                if d < base { lows += 1 } else if d > base { highs += 1 }
            }
        }
        #expect(lows > 0 && highs > 0, "jitter goes both ways")
        #expect(secs(b.delay(attempt: Int.max, random: 0.5)) == 300)
    }

    @Test func seededJitterIsReproducible() {
        func run() -> [MonotonicTime?] {
            var s = ConnectionScheduler(random: SplitMix64(seed: 99))
            _ = s.add("a", policy: .keep, at: t(0))
            var out: [MonotonicTime?] = []
            for i in 0..<5 {
                _ = s.connected(handle: UInt16(i + 1), device: "a", at: t(Double(i) * 100))
                _ = s.disconnected(handle: UInt16(i + 1), reason: .connectionTimeout, at: t(Double(i) * 100 + 1))
                out.append(retryAt(s, "a"))
            }
            return out
        }
        #expect(run() == run())
    }

    // MARK: Policies

    @Test func priorityDecidesAmongDevicesWaitingTogether() {
        var s = scheduler()
        _ = s.add("x", policy: .keep, at: t(0))                // holds the pending connect
        _ = s.add("o", policy: .onDemand, requested: true, at: t(0))
        _ = s.add("p", policy: .poll(every: .seconds(60)), at: t(0))
        _ = s.add("k", policy: .keep, at: t(0))
        _ = s.add("n", policy: .never, at: t(0))
        #expect(s.connected(handle: 1, device: "x", at: t(1)).a == [.connect("k")])
        #expect(s.connected(handle: 2, device: "k", at: t(2)).a == [.connect("p")])
        #expect(s.connected(handle: 3, device: "p", at: t(3)).a == [.connect("o")])
        #expect(s.connected(handle: 4, device: "o", at: t(4)).a == [], "never is never scheduled")
    }

    @Test func pollConnectsEveryPeriodAndDisconnectsWhenItsWorkIsDone() {
        var s = scheduler()
        #expect(s.add("p", policy: .poll(every: .seconds(60)), at: t(0)).a == [.connect("p")])
        _ = s.connected(handle: 1, device: "p", at: t(0.5))
        #expect(s.workDone("p", at: t(2)).a == [.disconnect(handle: 1, device: "p")])
        let down = s.disconnected(handle: 1, reason: .localHostTerminated, at: t(2.1))
        #expect(down.a == [])
        #expect(down.nextDeadline == t(60), "next period counts from the last attempt")
        #expect(s.tick(at: t(59)).a == [])
        #expect(s.tick(at: t(60)).a == [.connect("p")])
        // A poll whose work never finishes is ended by its work timeout.
        _ = s.connected(handle: 2, device: "p", at: t(61))
        #expect(s.tick(at: t(120.9)).a == [])
        #expect(s.tick(at: t(121)).a == [.disconnect(handle: 2, device: "p")])
    }

    @Test func onDemandConnectsWhenAskedAndDisconnectsAfterIdle() {
        var s = scheduler()
        #expect(s.add("o", policy: .onDemand, at: t(0)).a == [])
        #expect(s.tick(at: t(100)).a == [], "not asked, not connected")
        #expect(s.request("o", at: t(100)).a == [.connect("o")])
        _ = s.connected(handle: 4, device: "o", at: t(101))
        _ = s.workDone("o", at: t(102))
        _ = s.request("o", at: t(120))                    // another write keeps it up
        _ = s.workDone("o", at: t(121))
        #expect(s.tick(at: t(150)).a == [])
        #expect(s.tick(at: t(151)).a == [.disconnect(handle: 4, device: "o")], "30 s after the last activity")
        #expect(s.disconnected(handle: 4, reason: .localHostTerminated, at: t(151.1)).a == [])
        #expect(s.tick(at: t(500)).a == [], "no reconnect until asked again")
    }

    @Test func aRemovedDeviceWhoseConnectCompletesAnywayIsDisconnected() {
        var s = scheduler()
        _ = s.add("a", policy: .keep, at: t(0))
        #expect(s.remove("a", at: t(1)).a == [.cancelConnect("a")])
        #expect(s.connected(handle: 3, device: "a", at: t(1.1)).a == [.disconnect(handle: 3, device: "a")])
        #expect(s.slotsUsed == 1, "held until its Disconnection Complete")
        #expect(s.disconnected(handle: 3, reason: .localHostTerminated, at: t(1.2)).a == [])
        #expect(s.slotsUsed == 0)
    }

    @Test func aDeviceMadeNeverLosesItsLink() {
        var s = scheduler()
        _ = s.add("a", policy: .keep, at: t(0))
        _ = s.connected(handle: 3, device: "a", at: t(1))
        #expect(s.add("a", policy: .never, at: t(2)).a == [.disconnect(handle: 3, device: "a")])
        #expect(s.disconnected(handle: 3, reason: .localHostTerminated, at: t(3)).a == [])
        #expect(s.tick(at: t(100)).a == [])
    }

    @Test func aHandleReportedUpTwiceLeavesItsFormerDeviceUnlinked() {
        var s = scheduler(max: 1)
        _ = s.add("a", policy: .keep, at: t(0))
        _ = s.connected(handle: 1, device: "a", at: t(1))
        _ = s.connected(handle: 1, device: nil, at: t(2))
        #expect(s.slotsUsed == 1)
        #expect(s.report(for: "a")?.link == .idle, "a's handle now belongs to another link")
        #expect(s.disconnected(handle: 1, reason: .remoteUserTerminated, at: t(3)).a == [.connect("a")])
    }

    // MARK: What an adapter still holds

    @Test func aRemovedDeviceIsHeldUntilItsAttemptOrLinkHasEnded() {
        var s = scheduler()
        _ = s.add("a", policy: .keep, at: t(0))
        #expect(s.holds("a"), "its connect is pending")
        #expect(s.remove("a", at: t(1)).a == [.cancelConnect("a")])
        #expect(s.holds("a"), "the cancel only asks")
        _ = s.connectFailed(.unknownConnectionIdentifier, at: t(2))
        #expect(!s.holds("a"), "the cancel is confirmed")

        _ = s.add("b", policy: .keep, at: t(3))
        _ = s.remove("b", at: t(4))
        // The connect won the race with its cancel: the late link is ended, and held until then.
        #expect(s.connected(handle: 5, device: "b", at: t(5)).a == [.disconnect(handle: 5, device: "b")])
        #expect(s.holds("b"))
        _ = s.disconnected(handle: 5, reason: .localHostTerminated, at: t(6))
        #expect(!s.holds("b"))
    }
}
