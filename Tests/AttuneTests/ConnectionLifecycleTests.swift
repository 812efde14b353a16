import Testing
import GATT
@testable import Attune

@Suite("Connection lifecycle")
struct ConnectionLifecycleTests {
    /// Drives a machine through connect → link up → the engine's start-up → ready.
    static func readyMachine(_ configuration: LifecycleConfiguration, random: Double = 0) -> ConnectionLifecycle {
        var m = ConnectionLifecycle(configuration: configuration, random: FixedRandom(fraction: random))
        _ = m.connect(at: .zero)
        _ = m.linkUp(at: seconds(0.1))
        _ = m.gattPhase(.exchangingMTU)
        _ = m.gattPhase(.discovering)
        let done = m.gattReady(at: seconds(0.3))
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

    @Test func theLinkComingUpStartsTheEngineWhosePhasesAreReportedUntilReady() {
        var m = ConnectionLifecycle()
        _ = m.connect(at: .zero)
        let up = m.linkUp(at: seconds(1))
        #expect(up == [.deliver(.phase(.connected)), .startGATT])
        #expect(m.gattPhase(.exchangingMTU) == [.deliver(.phase(.exchangingMTU))])
        #expect(m.gattPhase(.exchangingMTU) == [], "a phase is reported once")
        #expect(m.gattPhase(.validatingCache) == [.deliver(.phase(.validatingCache))])
        #expect(m.gattPhase(.resubscribing) == [.deliver(.phase(.resubscribing))])
        #expect(m.connectionState == .connected)
        #expect(m.gattReady(at: seconds(2)) == [.deliver(.phase(.ready))])
        #expect(m.gattPhase(.discovering) == [], "nothing moves a ready connection back")
        #expect(m.gattReady(at: seconds(3)) == [])
        #expect(m.tick(at: seconds(60)) == [], "no connect timeout once connected")
    }

    @Test func dropMidDiscoveryFailsTheWaitingConnectAndSurfacesTheReason() {
        var m = ConnectionLifecycle()
        _ = m.connect(at: .zero)
        _ = m.linkUp(at: seconds(1))
        _ = m.gattPhase(.discovering)
        #expect(m.phase == .discovering)
        let reason = DisconnectReason.hci(HCIStatus.connectionTimeout)
        let dropped = m.linkDown(reason, at: seconds(1.5))
        #expect(dropped.first == .failPendingOperations(reason))
        #expect(dropped.events == [.connectFailed(.peripheralDisconnected(reason)), .phase(.disconnected),
                                   .disconnected(reason, reconnectAt: nil)])
        #expect(dropped.contains(.endSubscriptions(.peripheralDisconnected(reason))))
        #expect(m.connectionState == .disconnected)
        // A late report from the engine is ignored.
        #expect(m.gattReady(at: seconds(2)) == [])
        #expect(m.gattPhase(.resubscribing) == [])
    }

    @Test func dropMidProcedureWithAutomaticReconnectSchedulesTheNextAttempt() {
        let config = LifecycleConfiguration(reconnect: .automatic(Backoff(jitter: 0)))
        var m = Self.readyMachine(config)
        let reason = DisconnectReason.attBearerClosed(.requestTimeout(.readRequest))
        let dropped = m.linkDown(reason, at: seconds(10))
        #expect(dropped.first == .failPendingOperations(reason))
        #expect(dropped.events == [.phase(.disconnected), .disconnected(reason, reconnectAt: seconds(11))])
        #expect(dropped.schedules == [seconds(11)])
        #expect(m.reconnectAt == seconds(11))
        #expect(!dropped.contains { if case .endSubscriptions = $0 { true } else { false } }, "kept for the reconnect")
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
        var actions = m.linkDown(.hci(HCIStatus.connectionTimeout), at: now)
        for attempt in 0..<9 {
            guard let at = m.reconnectAt else { Issue.record("no reconnect pending"); return }
            gaps.append(at.duration(since: now))
            #expect(actions.events.contains(.disconnected(attempt == 0 ? .hci(HCIStatus.connectionTimeout) : .connectionTimeout,
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
        _ = m.gattReady(at: now)
        #expect(m.phase == .ready)
        _ = m.linkDown(.hci(HCIStatus.remoteUserTerminatedConnection), at: seconds(1000))
        #expect(m.reconnectAt == seconds(1000.75))
    }

    @Test func cancelWhileReconnectPendingIsSurfacedAndEndsSubscriptions() {
        let config = LifecycleConfiguration(reconnect: .automatic(Backoff(jitter: 0)))
        var m = Self.readyMachine(config)
        _ = m.linkDown(.hci(HCIStatus.connectionTimeout), at: seconds(10))
        let cancelled = m.cancel(at: seconds(10.5))
        #expect(cancelled.events == [.phase(.disconnected), .disconnected(.cancelled, reconnectAt: nil)])
        #expect(cancelled.contains(.endSubscriptions(.cancelled)))
        #expect(m.reconnectAt == nil)
        #expect(m.tick(at: seconds(20)) == [])
    }

    @Test func withoutReconnectADropEndsEverySubscriptionWithItsReason() {
        var m = Self.readyMachine(LifecycleConfiguration())
        let reason = DisconnectReason.hci(HCIStatus.remoteUserTerminatedConnection)
        let dropped = m.linkDown(reason, at: seconds(3))
        #expect(dropped.events == [.phase(.disconnected), .disconnected(reason, reconnectAt: nil)])
        #expect(dropped.last == .endSubscriptions(.peripheralDisconnected(reason)))
    }

    @Test func applicationDisconnectNeverReconnects() {
        let config = LifecycleConfiguration(reconnect: .automatic)
        var m = Self.readyMachine(config)
        let cancel = m.cancel(at: seconds(1))
        #expect(cancel == [.failPendingOperations(.cancelled), .closeLink, .deliver(.phase(.disconnecting)),
                           .schedule(seconds(6))])
        #expect(m.connectionState == .disconnecting)
        let down = m.linkDown(.hci(HCIStatus.connectionTerminatedByLocalHost), at: seconds(1.1))
        #expect(down.events == [.phase(.disconnected), .disconnected(.hci(HCIStatus.connectionTerminatedByLocalHost), reconnectAt: nil)])
        #expect(m.reconnectAt == nil)
    }

    @Test func aConnectCancelledDuringStartUpFailsOnceTheLinkIsDown() {
        var m = ConnectionLifecycle()
        _ = m.connect(at: .zero)
        _ = m.linkUp(at: seconds(0.1))
        _ = m.gattPhase(.discovering)
        let cancel = m.cancel(at: seconds(1))
        #expect(!cancel.events.contains(.connectFailed(.cancelled)), "the link is still up: \(cancel)")
        let down = m.linkDown(.hci(HCIStatus.connectionTerminatedByLocalHost), at: seconds(1.1))
        #expect(down.events == [.connectFailed(.cancelled), .phase(.disconnected),
                                .disconnected(.hci(HCIStatus.connectionTerminatedByLocalHost), reconnectAt: nil)])
        // One that never says so fails at the disconnect timeout.
        var n = ConnectionLifecycle()
        _ = n.connect(at: .zero)
        _ = n.linkUp(at: seconds(0.1))
        _ = n.cancel(at: seconds(1))
        #expect(n.tick(at: seconds(6)).events.first == .connectFailed(.cancelled))
        // Asked to connect again meanwhile: the waiting connect waits for that attempt.
        var o = ConnectionLifecycle()
        _ = o.connect(at: .zero)
        _ = o.linkUp(at: seconds(0.1))
        _ = o.cancel(at: seconds(1))
        _ = o.connect(at: seconds(1.05))
        let again = o.linkDown(.hci(HCIStatus.connectionTerminatedByLocalHost), at: seconds(1.1))
        #expect(!again.events.contains(.connectFailed(.cancelled)), "\(again)")
        #expect(o.connectionState == .connecting)
    }

    @Test func aConnectCancelledWhileConnectingFailsOnceTheAttemptHasEnded() {
        var m = ConnectionLifecycle(configuration: LifecycleConfiguration(reconnect: .automatic))
        _ = m.connect(at: .zero)
        let cancel = m.cancel(at: seconds(1))
        #expect(cancel == [.closeLink, .deliver(.phase(.disconnecting)), .schedule(seconds(6))])
        #expect(m.connectionState == .disconnecting)
        // The attempt says it failed: that is its end, and the waiting connect's.
        let ended = m.linkFailed(.cancelled, at: seconds(1.1))
        #expect(ended.events == [.connectFailed(.cancelled), .phase(.disconnected), .disconnected(.cancelled, reconnectAt: nil)])
        #expect(m.reconnectAt == nil)
        // The controller's connection crossed the cancel: the link is closed, and the
        // connect fails only once that link is down.
        var n = ConnectionLifecycle()
        _ = n.connect(at: .zero)
        _ = n.cancel(at: seconds(1))
        #expect(n.linkUp(at: seconds(1.05)) == [.closeLink])
        #expect(n.connectionState == .disconnecting)
        let down = n.linkDown(.hci(HCIStatus.connectionTerminatedByLocalHost), at: seconds(1.2))
        #expect(down.events == [.connectFailed(.cancelled), .phase(.disconnected),
                                .disconnected(.hci(HCIStatus.connectionTerminatedByLocalHost), reconnectAt: nil)])
        // An attempt that never says so ends at the disconnect timeout.
        var o = ConnectionLifecycle()
        _ = o.connect(at: .zero)
        _ = o.cancel(at: seconds(1))
        #expect(o.tick(at: seconds(5.9)) == [.schedule(seconds(6))])
        #expect(o.tick(at: seconds(6)).events.first == .connectFailed(.cancelled))
        // Asked to connect again meanwhile: a new attempt starts once the old one ended.
        var r = ConnectionLifecycle()
        _ = r.connect(at: .zero)
        _ = r.cancel(at: seconds(1))
        _ = r.connect(at: seconds(1.05))
        let again = r.linkFailed(.cancelled, at: seconds(1.1))
        #expect(!again.events.contains(.connectFailed(.cancelled)), "\(again)")
        #expect(again.contains(.openLink))
        #expect(r.connectionState == .connecting)
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
        let failed = m.linkFailed(.hci(HCIStatus.connectionFailedToBeEstablished), at: seconds(1))
        #expect(failed.events == [.connectFailed(.connectionFailed(.hci(HCIStatus.connectionFailedToBeEstablished))), .phase(.disconnected),
                                  .disconnected(.hci(HCIStatus.connectionFailedToBeEstablished), reconnectAt: nil)])
        #expect(m.reconnectAt == nil)
    }

    @Test func gatewaysMayRetryEvenTheFirstConnection() {
        var m = ConnectionLifecycle(configuration: LifecycleConfiguration(
            reconnect: .automatic(Backoff(jitter: 0)), retriesFirstConnection: true))
        _ = m.connect(at: .zero)
        let failed = m.linkFailed(.hci(HCIStatus.connectionFailedToBeEstablished), at: seconds(1))
        #expect(failed.events == [.connectFailed(.connectionFailed(.hci(HCIStatus.connectionFailedToBeEstablished))), .phase(.disconnected),
                                  .disconnected(.hci(HCIStatus.connectionFailedToBeEstablished), reconnectAt: seconds(2))])
        #expect(m.tick(at: seconds(2)).contains(.openLink))
    }

    @Test func connectDuringPendingReconnectStartsAtOnceAndReportsFailure() {
        let config = LifecycleConfiguration(reconnect: .automatic(Backoff(jitter: 0)))
        var m = Self.readyMachine(config)
        _ = m.linkDown(.hci(HCIStatus.connectionTimeout), at: seconds(10))
        #expect(m.connect(at: seconds(10.2)).contains(.openLink))
        let failed = m.linkFailed(.hci(HCIStatus.connectionFailedToBeEstablished), at: seconds(10.4))
        #expect(failed.events.first == .connectFailed(.connectionFailed(.hci(HCIStatus.connectionFailedToBeEstablished))))
        #expect(m.reconnectAt == seconds(12.4), "background attempts go on with the next backoff step")
    }
}
