import Testing
import GATT
@testable import Attune

@Suite("Connection lifecycle")
struct ConnectionLifecycleTests {
    /// Drives a machine through connect → link up → MTU → discovery → ready.
    static func readyMachine(_ configuration: LifecycleConfiguration, subscriptions: [Subscription] = [],
                             random: Double = 0) -> ConnectionLifecycle {
        var m = ConnectionLifecycle(configuration: configuration, subscriptions: subscriptions,
                                    random: FixedRandom(fraction: random))
        _ = m.connect(at: .zero)
        _ = m.linkUp(at: seconds(0.1))
        _ = m.mtuExchanged(247, at: seconds(0.2))
        let done = m.discoveryCompleted(Sample.services(), databaseHash: Sample.hash, at: seconds(0.3))
        for s in subscriptions { _ = m.resubscribeCompleted(s, error: nil, at: seconds(0.4)) }
        #expect(m.phase == .ready, "\(done)")
        return m
    }

    @Test func connectTimesOutAfterThirtySecondsByDefault() {
        var m = ConnectionLifecycle()
        let start = m.connect(at: seconds(5))
        #expect(start == [.deliver(.phase(.connecting)), .openLink, .schedule(seconds(35))])
        #expect(m.connectionState == .connecting)
        #expect(m.tick(at: seconds(34.999)) == [.schedule(seconds(35))])
        let fired = m.tick(at: seconds(35))
        #expect(fired.first == .closeLink)
        #expect(fired.events == [.connectFailed(.connectionTimeout), .phase(.disconnected),
                                 .disconnected(.connectionTimeout, reconnectAt: nil)])
        #expect(m.connectionState == .disconnected)
        #expect(m.tick(at: seconds(100)) == [])
    }

    @Test func connectTimeoutIsConfigurable() {
        var m = ConnectionLifecycle(configuration: LifecycleConfiguration(connectTimeout: .seconds(2)))
        #expect(m.connect(at: .zero).schedules == [seconds(2)])
        #expect(m.tick(at: seconds(2)).events.first == .connectFailed(.connectionTimeout))
    }

    @Test func firstConnectionDiscoversAndBecomesReady() {
        var m = ConnectionLifecycle()
        _ = m.connect(at: .zero)
        let up = m.linkUp(at: seconds(1))
        #expect(up == [.deliver(.phase(.connected)), .deliver(.phase(.exchangingMTU)), .exchangeMTU(preferred: 517)])
        let mtu = m.mtuExchanged(247, at: seconds(1.1))
        #expect(mtu == [.deliver(.phase(.discovering)), .discoverDatabase])
        #expect(m.mtu == 247)
        let done = m.discoveryCompleted(Sample.services(), databaseHash: Sample.hash, at: seconds(2))
        let cache = GATTCache(services: Sample.services(), databaseHash: Sample.hash)
        #expect(done == [.saveCache(cache), .deliver(.phase(.ready))])
        #expect(m.cache == cache)
        #expect(m.tick(at: seconds(60)) == [], "no connect timeout once connected")
    }

    @Test func dropMidDiscoveryFailsTheWaitingConnectAndSurfacesTheReason() {
        var m = ConnectionLifecycle()
        _ = m.connect(at: .zero)
        _ = m.linkUp(at: seconds(1))
        _ = m.mtuExchanged(100, at: seconds(1.1))
        #expect(m.phase == .discovering)
        let reason = DisconnectReason.hci(HCIStatus(0x08))
        let dropped = m.linkDown(reason, at: seconds(1.5))
        #expect(dropped.first == .failPendingOperations(reason))
        #expect(dropped.events == [.connectFailed(.peripheralDisconnected(reason)), .phase(.disconnected),
                                   .disconnected(reason, reconnectAt: nil)])
        #expect(m.connectionState == .disconnected)
        // A late discovery result is ignored.
        #expect(m.discoveryCompleted(Sample.services(), databaseHash: nil, at: seconds(2)) == [])
    }

    @Test func dropMidProcedureWithAutomaticReconnectSchedulesTheNextAttempt() {
        let config = LifecycleConfiguration(reconnect: .automatic(Backoff(jitter: 0)))
        var m = Self.readyMachine(config, subscriptions: [Sample.heartRateSubscription])
        let reason = DisconnectReason.attBearerClosed(.requestTimeout(.readRequest))
        let dropped = m.linkDown(reason, at: seconds(10))
        #expect(dropped.first == .failPendingOperations(reason))
        #expect(dropped.events == [.phase(.disconnected), .disconnected(reason, reconnectAt: seconds(11))])
        #expect(dropped.schedules == [seconds(11)])
        #expect(m.reconnectAt == seconds(11))
        #expect(m.subscriptions == [Sample.heartRateSubscription], "kept for the reconnect")
        #expect(m.tick(at: seconds(10.5)) == [.schedule(seconds(11))])
        #expect(m.tick(at: seconds(11)) == [.deliver(.phase(.connecting)), .openLink, .schedule(seconds(41))])
    }

    @Test func backoffGrowsExponentiallyToItsCap() {
        let b = Backoff(jitter: 0)
        let delays = (0..<9).map { b.delay(attempt: $0, random: 0.9) }
        #expect(delays == [1, 2, 4, 8, 16, 32, 60, 60, 60].map { Duration.seconds($0) })
        #expect(b.delay(attempt: Int.max, random: 0) == .seconds(60))
        let custom = Backoff(initialDelay: .milliseconds(500), maximumDelay: .seconds(10), multiplier: 3, jitter: 0)
        #expect((0..<5).map { custom.delay(attempt: $0, random: 0) }
                == [.milliseconds(500), .milliseconds(1500), .milliseconds(4500), .seconds(10), .seconds(10)])
    }

    @Test func jitterOnlyShortensAndComesFromTheInjectedSource() {
        let b = Backoff.standard
        #expect(b.delay(attempt: 0, random: 0) == .seconds(1))
        #expect(b.delay(attempt: 3, random: 0.5) == .milliseconds(7200))
        #expect(b.delay(attempt: 10, random: 0.999_999) > .seconds(48))
        #expect(b.delay(attempt: 10, random: 0.999_999) <= .seconds(60))
    }

    @Test func failedReconnectAttemptsBackOffAndAreEachSurfaced() {
        let config = LifecycleConfiguration(connectTimeout: .seconds(5), reconnect: .automatic(Backoff(jitter: 0.5)))
        var m = Self.readyMachine(config, random: 0.5)   // each delay is 75 % of its base
        var now = seconds(100)
        var gaps: [Duration] = []
        var actions = m.linkDown(.hci(HCIStatus(0x08)), at: now)
        for attempt in 0..<9 {
            guard let at = m.reconnectAt else { Issue.record("no reconnect pending"); return }
            gaps.append(at.duration(since: now))
            #expect(actions.events.contains(.disconnected(attempt == 0 ? .hci(HCIStatus(0x08)) : .connectionTimeout,
                                                          reconnectAt: at)))
            now = at
            #expect(m.tick(at: now).contains(.openLink))
            now = now + .seconds(5)
            actions = m.tick(at: now)   // the attempt times out
            #expect(actions.contains(.closeLink))
        }
        #expect(gaps == [0.75, 1.5, 3, 6, 12, 24, 45, 45, 45].map { Duration.seconds($0) })
        // Success resets the backoff.
        _ = m.tick(at: m.reconnectAt!)
        _ = m.linkUp(at: now)
        _ = m.mtuExchanged(23, at: now)
        _ = m.discoveryCompleted(Sample.services(), databaseHash: Sample.hash, cacheHit: true, at: now)
        #expect(m.phase == .ready)
        _ = m.linkDown(.hci(HCIStatus(0x13)), at: seconds(1000))
        #expect(m.reconnectAt == seconds(1000.75))
    }

    @Test func reconnectResubscribesAndACacheHitSkipsDiscovery() {
        let config = LifecycleConfiguration(reconnect: .automatic(Backoff(jitter: 0)))
        let subs = [Sample.heartRateSubscription, Sample.batterySubscription]
        var m = Self.readyMachine(config, subscriptions: subs)
        _ = m.linkDown(.hci(HCIStatus(0x08)), at: seconds(10))
        var all: [LifecycleAction] = []
        all += m.tick(at: seconds(11))
        all += m.linkUp(at: seconds(11.2))
        let mtu = m.mtuExchanged(247, at: seconds(11.3))
        // One request validates the cache: the engine reads the hash and answers with the
        // cache itself when it matches.
        #expect(mtu == [.deliver(.phase(.validatingCache)), .discoverDatabase])
        let hit = m.discoveryCompleted(Sample.services(), databaseHash: Sample.hash, cacheHit: true, at: seconds(11.4))
        #expect(hit == [.deliver(.cacheValidated(hit: true)), .deliver(.phase(.resubscribing)), .resubscribe(subs)])
        #expect(!hit.contains { if case .saveCache = $0 { true } else { false } }, "a hit saves nothing")
        all += mtu + hit
        all += m.resubscribeCompleted(subs[1], error: nil, at: seconds(11.5))
        #expect(m.phase == .resubscribing)
        let last = m.resubscribeCompleted(subs[0], error: nil, at: seconds(11.6))
        all += last
        #expect(last.events == [.subscriptionRestored(subs[0]), .phase(.ready)])
        #expect(!all.phases.contains(.discovering))
        #expect(all.phases == [.connecting, .connected, .exchangingMTU, .validatingCache, .resubscribing, .ready])
    }

    @Test func changedHashRediscoversAndRelocatesSubscriptions() {
        let config = LifecycleConfiguration(reconnect: .automatic(Backoff(jitter: 0)))
        let subs = [Sample.heartRateSubscription, Sample.batterySubscription]
        var m = Self.readyMachine(config, subscriptions: subs)
        _ = m.linkDown(.hci(HCIStatus(0x08)), at: seconds(10))
        _ = m.tick(at: seconds(11))
        _ = m.linkUp(at: seconds(11))
        #expect(m.mtuExchanged(23, at: seconds(11)) == [.deliver(.phase(.validatingCache)), .discoverDatabase])
        // The hash differed, so the engine discovered afresh: the new database moved Heart
        // Rate by 0x40 and dropped Battery.
        let moved = Sample.services(shift: 0x40, withBattery: false)
        let done = m.discoveryCompleted(moved, databaseHash: Sample.otherHash, at: seconds(12))
        #expect(done.first == .deliver(.cacheValidated(hit: false)))
        var relocated = Sample.heartRateSubscription
        relocated.valueHandle = 0x52
        relocated.configurationHandle = 0x53
        #expect(done.contains(.saveCache(GATTCache(services: moved, databaseHash: Sample.otherHash))))
        #expect(done.events.contains(.subscriptionEnded(Sample.batterySubscription, .attributeNotFound(
            "characteristic 2A19 of service 180F"))))
        #expect(done.contains(.saveSubscriptions([relocated])))
        #expect(done.contains(.resubscribe([relocated])))
        #expect(m.subscriptions == [relocated])
    }

    @Test func refusedResubscriptionEndsThatSubscriptionOnly() {
        let config = LifecycleConfiguration(reconnect: .automatic(Backoff(jitter: 0)))
        let subs = [Sample.heartRateSubscription, Sample.batterySubscription]
        var m = Self.readyMachine(config, subscriptions: subs)
        _ = m.linkDown(.hci(HCIStatus(0x08)), at: seconds(10))
        _ = m.tick(at: seconds(11))
        _ = m.linkUp(at: seconds(11))
        _ = m.mtuExchanged(23, at: seconds(11))
        _ = m.discoveryCompleted(Sample.services(), databaseHash: Sample.hash, cacheHit: true, at: seconds(11))
        let refused = m.resubscribeCompleted(subs[0], error: .att(.insufficientAuthentication), at: seconds(11))
        #expect(refused.events == [.subscriptionEnded(subs[0], .att(.insufficientAuthentication))])
        #expect(refused.contains(.saveSubscriptions([subs[1]])))
        _ = m.resubscribeCompleted(subs[1], error: nil, at: seconds(11))
        #expect(m.phase == .ready)
        #expect(m.subscriptions == [subs[1]])
    }

    @Test func cancelWhileReconnectPendingIsSurfacedAndEndsSubscriptions() {
        let config = LifecycleConfiguration(reconnect: .automatic(Backoff(jitter: 0)))
        var m = Self.readyMachine(config, subscriptions: [Sample.heartRateSubscription])
        _ = m.linkDown(.hci(HCIStatus(0x08)), at: seconds(10))
        let cancelled = m.cancel(at: seconds(10.5))
        #expect(cancelled.events == [.phase(.disconnected), .disconnected(.cancelled, reconnectAt: nil),
                                     .subscriptionEnded(Sample.heartRateSubscription, .cancelled)])
        #expect(cancelled.contains(.saveSubscriptions([])))
        #expect(m.reconnectAt == nil)
        #expect(m.tick(at: seconds(20)) == [])
    }

    @Test func withoutReconnectADropEndsEverySubscriptionWithItsReason() {
        var m = Self.readyMachine(LifecycleConfiguration(), subscriptions: [Sample.heartRateSubscription])
        let reason = DisconnectReason.hci(HCIStatus(0x13))
        let dropped = m.linkDown(reason, at: seconds(3))
        #expect(dropped.events == [.phase(.disconnected), .disconnected(reason, reconnectAt: nil),
                                   .subscriptionEnded(Sample.heartRateSubscription, .peripheralDisconnected(reason))])
        #expect(m.subscriptions.isEmpty)
    }

    @Test func applicationDisconnectNeverReconnects() {
        let config = LifecycleConfiguration(reconnect: .automatic)
        var m = Self.readyMachine(config)
        let cancel = m.cancel(at: seconds(1))
        #expect(cancel == [.failPendingOperations(.cancelled), .closeLink, .deliver(.phase(.disconnecting)),
                           .schedule(seconds(6))])
        #expect(m.connectionState == .disconnecting)
        let down = m.linkDown(.hci(HCIStatus(0x16)), at: seconds(1.1))
        #expect(down.events == [.phase(.disconnected), .disconnected(.hci(HCIStatus(0x16)), reconnectAt: nil)])
        #expect(m.reconnectAt == nil)
    }

    @Test func disconnectThatNeverCompletesTimesOut() {
        var m = Self.readyMachine(LifecycleConfiguration())
        _ = m.cancel(at: seconds(1))
        #expect(m.tick(at: seconds(5.9)) == [.schedule(seconds(6))])
        #expect(m.tick(at: seconds(6)).events == [.phase(.disconnected), .disconnected(.cancelled, reconnectAt: nil)])
    }

    @Test func firstConnectFailureIsNotRetriedEvenWithAutomaticReconnect() {
        var m = ConnectionLifecycle(configuration: LifecycleConfiguration(reconnect: .automatic))
        _ = m.connect(at: .zero)
        let failed = m.linkFailed(.hci(HCIStatus(0x3E)), at: seconds(1))
        #expect(failed.events == [.connectFailed(.connectionFailed(.hci(HCIStatus(0x3E)))), .phase(.disconnected),
                                  .disconnected(.hci(HCIStatus(0x3E)), reconnectAt: nil)])
        #expect(m.reconnectAt == nil)
    }

    @Test func gatewaysMayRetryEvenTheFirstConnection() {
        var m = ConnectionLifecycle(configuration: LifecycleConfiguration(
            reconnect: .automatic(Backoff(jitter: 0)), retriesFirstConnection: true))
        _ = m.connect(at: .zero)
        let failed = m.linkFailed(.hci(HCIStatus(0x3E)), at: seconds(1))
        #expect(failed.events == [.connectFailed(.connectionFailed(.hci(HCIStatus(0x3E)))), .phase(.disconnected),
                                  .disconnected(.hci(HCIStatus(0x3E)), reconnectAt: seconds(2))])
        #expect(m.tick(at: seconds(2)).contains(.openLink))
    }

    @Test func connectDuringPendingReconnectStartsAtOnceAndReportsFailure() {
        let config = LifecycleConfiguration(reconnect: .automatic(Backoff(jitter: 0)))
        var m = Self.readyMachine(config)
        _ = m.linkDown(.hci(HCIStatus(0x08)), at: seconds(10))
        #expect(m.connect(at: seconds(10.2)).contains(.openLink))
        let failed = m.linkFailed(.hci(HCIStatus(0x3E)), at: seconds(10.4))
        #expect(failed.events.first == .connectFailed(.connectionFailed(.hci(HCIStatus(0x3E)))))
        #expect(m.reconnectAt == seconds(12.4), "background attempts go on with the next backoff step")
    }

    @Test func restoredSubscriptionsAreWrittenOnTheFirstConnection() {
        let cache = GATTCache(services: Sample.services(), databaseHash: Sample.hash)
        var m = ConnectionLifecycle(cache: cache, subscriptions: [Sample.heartRateSubscription])
        _ = m.connect(at: .zero)
        _ = m.linkUp(at: .zero)
        _ = m.mtuExchanged(23, at: .zero)
        #expect(m.discoveryCompleted(Sample.services(), databaseHash: Sample.hash, cacheHit: true, at: .zero).contains(.resubscribe([Sample.heartRateSubscription])))
    }
}
