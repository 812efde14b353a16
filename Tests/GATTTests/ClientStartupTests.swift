import ATT
import GATTTestSupport
import Testing
@testable import GATT

/// What the client shows of its start-up at one moment. Readiness, phase and cache
/// verdict are read off one state, so they are checked together: a step where they
/// disagree shows up as a row no walk expects.
struct StartupView: Equatable, CustomStringConvertible {
    var phase: GATTStartupPhase?
    var isReady: Bool
    var cacheHit: Bool?

    init(_ client: GATTClient) {
        phase = client.startupPhase
        isReady = client.isReady
        cacheHit = client.cacheHit
    }

    init(_ phase: GATTStartupPhase?, ready: Bool = false, cacheHit: Bool? = nil) {
        self.phase = phase
        isReady = ready
        self.cacheHit = cacheHit
    }

    var description: String { "\(phase.map { "\($0)" } ?? "nil") ready=\(isReady) hit=\(cacheHit.map { "\($0)" } ?? "nil")" }
}

/// A client and our server, one client PDU at a time, noting every change of what the
/// client shows of its start-up.
struct StartupWalk {
    var h: ClientHarness
    var server: GATTServer
    var output = GATTServerOutput()
    var seen: [StartupView]

    init(server: GATTServer, configuration: GATTClientConfiguration, database: DiscoveredDatabase = DiscoveredDatabase()) {
        h = ClientHarness(connection: GATTLink(configuration: configuration, database: database))
        self.server = server
        self.server.connect(1, at: .zero, into: &output)
        seen = [StartupView(h.connection.client)]
    }

    mutating func note() {
        let now = StartupView(h.connection.client)
        if now != seen.last { seen.append(now) }
    }

    /// Starts the client, then carries PDUs both ways until it sends nothing more.
    mutating func run(restoring: [Subscription] = []) {
        h.take(h.connection.start(restoring: restoring, at: h.now))
        note()
        var guardCount = 0
        while !h.sent.isEmpty && guardCount < 1_000 {
            guardCount += 1
            let pdu = h.sent.removeFirst()
            server.receive(pdu[...], from: 1, at: h.now, into: &output)
            let answers = output.pdus.filter { $0.connection == 1 }.map { Array(output.bytes(of: $0)) }
            output = GATTServerOutput()
            for answer in answers {
                h.receive(answer)
                note()
            }
        }
    }

    var readyEvents: Int { h.events.filter { if case .ready = $0 { true } else { false } }.count }
}

/// The client's start-up walked step by step: each phase is reached in order, and the
/// client says it is ready only in the last one.
@Suite("Client start-up")
struct ClientStartupTests {
    typealias R = ClientRestorationTests

    /// The database our server shows, as a first link discovers it, and that link's
    /// Heart Rate subscription.
    static func firstLink() throws -> (DiscoveredDatabase, [Subscription]) {
        var first = GATTMemoryPipe(server: R.server(shifted: false, withBattery: true),
                                   clientConfiguration: GATTClientConfiguration(discoversOnStart: true))
        first.start()
        let database = first.client.client.database
        let measurement = try #require(database.characteristic(uuid: R.measurement))
        #expect(first.perform(.subscribe(valueHandle: measurement.valueHandle)).success == .done)
        #expect(database.databaseHash != nil)
        return (database, first.client.client.subscriptions)
    }

    // MARK: Exchange MTU only

    /// The case that used to disagree: with nothing to discover, the client said it was
    /// ready while its phase was still `.exchangingMTU`.
    @Test func withNothingToDiscoverItIsReadyOnlyOnceTheMTUIsKnown() {
        var h = ClientHarness(connection: GATTLink(configuration: GATTClientConfiguration(rxMTU: 247)))
        #expect(StartupView(h.connection.client) == StartupView(nil))
        h.take(h.connection.start(at: h.now))
        #expect(h.nextSent() == "02f700")
        #expect(StartupView(h.connection.client) == StartupView(.exchangingMTU))
        h.receive(hex: "03f700")
        #expect(StartupView(h.connection.client) == StartupView(.ready, ready: true))
        #expect(h.connection.bearer.mtu == 247)
        #expect(h.events.isEmpty, "no discovery configured: no `.ready` event, only the phase")
    }

    @Test func aRefusedMTUExchangeStillEndsStartUp() {
        var h = ClientHarness(connection: GATTLink(configuration: GATTClientConfiguration(rxMTU: 247)))
        h.take(h.connection.start(at: h.now))
        #expect(h.nextSent() == "02f700")
        h.receive(hex: "0102000006")                        // Request Not Supported
        #expect(StartupView(h.connection.client) == StartupView(.ready, ready: true))
        #expect(h.connection.bearer.mtu == 23)
    }

    @Test func withNothingToDoItIsReadyAtOnce() {
        var h = ClientHarness(connection: GATTLink(configuration: GATTClientConfiguration(exchangesMTUOnStart: false)))
        h.take(h.connection.start(at: h.now))
        #expect(h.sent.isEmpty)
        #expect(StartupView(h.connection.client) == StartupView(.ready, ready: true))
    }

    // MARK: Discovery

    @Test func withoutACacheItDiscovers() {
        var walk = StartupWalk(server: R.server(shifted: false, withBattery: true),
                               configuration: GATTClientConfiguration(discoversOnStart: true))
        walk.run()
        #expect(walk.seen == [StartupView(nil), StartupView(.exchangingMTU), StartupView(.discovering),
                              StartupView(.ready, ready: true)])
        #expect(walk.readyEvents == 1)
        guard case .ready(let database)? = walk.h.events.last else { Issue.record("\(walk.h.events)"); return }
        #expect(database.characteristic(uuid: R.level) != nil)
    }

    @Test func aCacheWithoutAHashIsRediscoveredNotChecked() throws {
        var (cached, _) = try Self.firstLink()
        cached.databaseHash = nil
        var walk = StartupWalk(server: R.server(shifted: false, withBattery: true),
                               configuration: GATTClientConfiguration(discoversOnStart: true), database: cached)
        walk.run()
        #expect(walk.seen == [StartupView(nil), StartupView(.exchangingMTU), StartupView(.discovering),
                              StartupView(.ready, ready: true)])
    }

    // MARK: Cache hit and miss, with subscriptions to restore

    @Test func aCacheHitWalksEveryStepAndIsReadyOnlyAtTheEnd() throws {
        let (cached, kept) = try Self.firstLink()
        var walk = StartupWalk(server: R.server(shifted: false, withBattery: true),
                               configuration: GATTClientConfiguration(discoversOnStart: true), database: cached)
        walk.run(restoring: kept)
        #expect(walk.seen == [
            StartupView(nil), StartupView(.exchangingMTU), StartupView(.validatingCache),
            StartupView(.restoringSubscriptions, cacheHit: true), StartupView(.ready, ready: true, cacheHit: true),
        ])
        #expect(walk.readyEvents == 1)
        #expect(walk.h.events.suffix(2) == [.subscriptionRestored(kept[0]), .ready(cached)])
        #expect(walk.h.connection.client.subscriptions == kept)
    }

    @Test func aCacheHitWithNothingToRestoreGoesStraightToReady() throws {
        let (cached, _) = try Self.firstLink()
        var walk = StartupWalk(server: R.server(shifted: false, withBattery: true),
                               configuration: GATTClientConfiguration(discoversOnStart: true), database: cached)
        walk.run()
        #expect(walk.seen == [StartupView(nil), StartupView(.exchangingMTU), StartupView(.validatingCache),
                              StartupView(.ready, ready: true, cacheHit: true)])
        #expect(walk.h.events == [.ready(cached)])
    }

    @Test func aCacheMissRediscoversThenRestoresAtTheNewHandles() throws {
        let (cached, kept) = try Self.firstLink()
        var walk = StartupWalk(server: R.server(shifted: true, withBattery: true),
                               configuration: GATTClientConfiguration(discoversOnStart: true), database: cached)
        walk.run(restoring: kept)
        #expect(walk.seen == [
            StartupView(nil), StartupView(.exchangingMTU), StartupView(.validatingCache),
            StartupView(.restoringSubscriptions, cacheHit: false), StartupView(.ready, ready: true, cacheHit: false),
        ])
        #expect(walk.readyEvents == 1)
        let moved = try #require(walk.h.connection.client.subscriptions.first)
        #expect(moved.valueHandle != kept[0].valueHandle)
        #expect(walk.h.events.contains(.subscriptionMoved(moved, from: kept[0].valueHandle)))
        guard case .ready(let database)? = walk.h.events.last else { Issue.record("\(walk.h.events)"); return }
        #expect(database != cached)
    }

    @Test func untilDiscoveryAnswersTheSubscriptionsToRestoreAreKept() throws {
        let (cached, kept) = try Self.firstLink()
        var h = ClientHarness(connection: GATTLink(configuration: GATTClientConfiguration(discoversOnStart: true),
                                                   database: cached))
        h.take(h.connection.start(restoring: kept, at: h.now))
        #expect(StartupView(h.connection.client) == StartupView(.exchangingMTU))
        #expect(h.connection.client.subscriptions == kept)
        #expect(h.connection.client.isSubscribed(valueHandle: kept[0].valueHandle))
        _ = h.nextSent()
        h.receive(hex: "031700")
        #expect(StartupView(h.connection.client) == StartupView(.validatingCache))
        #expect(h.connection.client.subscriptions == kept)
    }

    // MARK: Failure, and what start does not repeat

    @Test func aFailedDiscoveryIsNeitherReadyNorACacheVerdict() {
        var h = ClientHarness(connection: GATTLink(configuration: GATTClientConfiguration(discoversOnStart: true)))
        h.take(h.connection.start(at: h.now))
        _ = h.nextSent()
        h.receive(hex: "031700")
        #expect(StartupView(h.connection.client) == StartupView(.discovering))
        var guardCount = 0
        while !h.sent.isEmpty && h.connection.client.startupPhase != .failed && guardCount < 100 {
            guardCount += 1
            let request = h.sent.removeFirst()
            h.receive([0x01, request[0], 0x01, 0x00, 0x0E])   // Unlikely Error
        }
        #expect(StartupView(h.connection.client) == StartupView(.failed))
        guard case .startupFailed? = h.events.last else { Issue.record("\(h.events)"); return }
        h.perform(.readValue(3))
        #expect(h.nextSent() == "0a0300", "the bearer still takes commands")
    }

    @Test func anMTUExchangeAskedBeforeStartIsTheStartUpOne() {
        var h = ClientHarness(connection: GATTLink(configuration: GATTClientConfiguration(discoversOnStart: true)))
        let asked = h.perform(.exchangeMTU)
        h.take(h.connection.start(at: h.now))
        #expect(StartupView(h.connection.client) == StartupView(.discovering))
        #expect(h.nextSent() == "020502")
        #expect(h.sent.isEmpty, "discovery waits behind the exchange")
        h.receive(hex: "031700")
        #expect(h.results[asked]?.success == .mtu(23))
        #expect(h.nextSent() == "080100ffff3a2b", "discovery begins (Client Supported Features first, BlueZ order)")
        #expect(h.sent.isEmpty, "one exchange only")
    }

    @Test func aSecondStartChangesNothing() {
        var h = ClientHarness(connection: GATTLink(configuration: GATTClientConfiguration(discoversOnStart: true)))
        h.take(h.connection.start(at: h.now))
        #expect(h.nextSent() == "020502")
        h.take(h.connection.start(restoring: [R.heartRateSubscription], at: h.now))
        #expect(h.sent.isEmpty)
        #expect(StartupView(h.connection.client) == StartupView(.exchangingMTU))
        #expect(h.connection.client.subscriptions.isEmpty)
    }

    // MARK: The transitions themselves

    /// An input its step did not ask for moves nothing and says nothing: in particular an
    /// answer after start-up cannot report ready a second time.
    @Test func strayInputsLeaveStartUpWhereItIs() {
        let discovery = GATTClientStartup.StartupDiscovery(cached: nil, restoring: [R.heartRateSubscription])
        let steps: [GATTClientStartup] = [
            .idle, .exchangingMTU(then: nil), .exchangingMTU(then: discovery), .discovering(discovery),
            .restoring(pending: 2, cacheHit: true), .ready(cacheHit: false), .failed,
        ]
        let inputs: [GATTClient.StartupInput] = [.mtuExchanged, .discovered(DiscoveredDatabase()),
                                                 .discoveryFailed(.bearerClosed), .restoreAnswered]
        // The pairs that are transitions, by index into `steps` and `inputs`.
        let moves: Set<[Int]> = [[1, 0], [2, 0], [3, 1], [3, 2], [4, 3]]
        for (s, step) in steps.enumerated() {
            for (i, input) in inputs.enumerated() where !moves.contains([s, i]) {
                var client = GATTClient()
                client.startup = step
                var actions: [GATTClientAction] = []
                client.advanceStartup(input, into: &actions)
                #expect(client.startup == step, "\(step) on \(input)")
                #expect(actions.isEmpty, "\(step) on \(input)")
            }
        }
    }

    @Test func eachRestoreAnswerCountsDownAndTheLastOneIsReady() {
        var client = GATTClient()
        client.startup = .restoring(pending: 2, cacheHit: true)
        var actions: [GATTClientAction] = []
        client.advanceStartup(.restoreAnswered, into: &actions)
        #expect(client.startup == .restoring(pending: 1, cacheHit: true))
        #expect(actions.isEmpty && !client.isReady)
        client.advanceStartup(.restoreAnswered, into: &actions)
        #expect(client.startup == .ready(cacheHit: true))
        #expect(actions == [.deliver(.ready(DiscoveredDatabase()))])
    }
}
