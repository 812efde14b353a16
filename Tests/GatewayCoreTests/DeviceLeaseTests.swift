import Testing
@testable import GatewayCore

/// A retained topic on a broker, delivering every publish to every gateway in order.
struct FakeOwnerTopic {
    var retained: LeaseRecord?
    var queue: [LeaseRecord?] = []

    mutating func take(_ step: LeaseStep) {
        for action in step.actions {
            switch action {
            case .publish(let r): queue.append(r)
            case .clear: queue.append(nil)
            case .acquired, .lost: break
            }
        }
    }

    /// Delivers queued publishes, one at a time, to every lease, until quiet.
    mutating func deliver(to leases: inout [DeviceLease], at now: Double) {
        var rounds = 0
        while !queue.isEmpty && rounds < 100 {
            rounds += 1
            let r = queue.removeFirst()
            retained = r
            for i in leases.indices { take(leases[i].observed(r, at: now)) }
        }
    }
}

@Suite("Device lease")
struct DeviceLeaseTests {
    static let t0 = 1_796_000_000.0

    @Test func aFreeDeviceIsClaimedThenOwnedAndRenewed() {
        var l = DeviceLease(gateway: "gw-a")
        let claim = l.setCanServe(true, at: Self.t0)
        #expect(claim.actions == [.publish(LeaseRecord(gateway: "gw-a", until: Self.t0 + 30, claim: true))])
        #expect(claim.nextDeadline == Self.t0 + 2)
        #expect(l.observed(LeaseRecord(gateway: "gw-a", until: Self.t0 + 30, claim: true), at: Self.t0 + 0.1).actions == [],
                "our own echo")
        #expect(l.tick(at: Self.t0 + 1.9).actions == [])
        let won = l.tick(at: Self.t0 + 2)
        #expect(won.actions == [.acquired, .publish(LeaseRecord(gateway: "gw-a", until: Self.t0 + 32))], "the claim becomes a lease")
        #expect(won.nextDeadline == Self.t0 + 12)
        #expect(l.tick(at: Self.t0 + 12).actions == [.publish(LeaseRecord(gateway: "gw-a", until: Self.t0 + 42))])
        #expect(l.isOwner)
    }

    @Test func theRenewalPhaseDelaysOnlyTheFirstRenewal() {
        var l = DeviceLease(gateway: "gw-a", configuration: LeaseConfiguration(duration: 8, renewEvery: 2, settle: 1),
                            renewalPhase: 0.5)
        _ = l.setCanServe(true, at: Self.t0)
        let won = l.tick(at: Self.t0 + 1)
        #expect(won.actions == [.acquired, .publish(LeaseRecord(gateway: "gw-a", until: Self.t0 + 9))])
        #expect(won.nextDeadline == Self.t0 + 4, "one period plus half of one")
        #expect(l.tick(at: Self.t0 + 3.9).actions == [])
        let renewed = l.tick(at: Self.t0 + 4)
        #expect(renewed.actions == [.publish(LeaseRecord(gateway: "gw-a", until: Self.t0 + 12))])
        #expect(renewed.nextDeadline == Self.t0 + 6, "then every period")
    }

    @Test func theRenewalPhaseNeverLeavesLessThanAPeriodBeforeTheLeaseEnds() {
        // 3 s renewals of a 4 s lease: no room to delay, so the phase is not used.
        var l = DeviceLease(gateway: "gw-a", configuration: LeaseConfiguration(duration: 4, renewEvery: 3, settle: 0),
                            renewalPhase: 1)
        _ = l.setCanServe(true, at: Self.t0)
        #expect(l.tick(at: Self.t0).nextDeadline == Self.t0 + 3)
        var hostile = DeviceLease(gateway: "gw-a", renewalPhase: .nan)
        _ = hostile.setCanServe(true, at: Self.t0)
        #expect(hostile.tick(at: Self.t0 + 2).nextDeadline == Self.t0 + 12, "a phase that is not a number is 0")
    }

    @Test func aValidLeaseOfAnOnlineOwnerIsLeftAlone() {
        var l = DeviceLease(gateway: "gw-a")
        _ = l.gatewayStatus("gw-b", online: true, at: Self.t0)
        _ = l.observed(LeaseRecord(gateway: "gw-b", until: Self.t0 + 30), at: Self.t0)
        let step = l.setCanServe(true, at: Self.t0)
        #expect(step.actions == [])
        #expect(step.nextDeadline == Self.t0 + 30, "watch for its expiry")
        #expect(l.tick(at: Self.t0 + 29).actions == [])
    }

    @Test func takeoverWithinTenSecondsOfTheOwnerGoingOffline() {
        var l = DeviceLease(gateway: "gw-b")
        _ = l.observed(LeaseRecord(gateway: "gw-a", until: Self.t0 + 30), at: Self.t0)
        _ = l.setCanServe(true, at: Self.t0)
        #expect(l.standing(at: Self.t0) == .heldBy("gw-a", until: Self.t0 + 30))
        let offline = Self.t0 + 5
        #expect(l.standing(at: offline) == .heldBy("gw-a", until: Self.t0 + 30))
        let claim = l.gatewayStatus("gw-a", online: false, at: offline)
        #expect(claim.actions == [.publish(LeaseRecord(gateway: "gw-b", until: offline + 30, claim: true))],
                "at once, not at the lease's end")
        var owned: Double?
        var now = offline
        while now < offline + 10 && owned == nil {
            now += 0.5
            if l.tick(at: now).actions.contains(.acquired) { owned = now }
        }
        #expect(l.standing(at: now) == .mine)
        #expect(owned.map { $0 - offline <= 10 } == true, "owned after \(String(describing: owned.map { $0 - offline })) s")
    }

    @Test func takeoverWithinTenSecondsOfExpiry() {
        var l = DeviceLease(gateway: "gw-b")
        _ = l.gatewayStatus("gw-a", online: true, at: Self.t0)
        _ = l.observed(LeaseRecord(gateway: "gw-a", until: Self.t0 + 30), at: Self.t0)
        let watching = l.setCanServe(true, at: Self.t0)
        #expect(l.tick(at: Self.t0 + 29.9).actions == [])
        let expiry = watching.nextDeadline ?? 0
        #expect(expiry == Self.t0 + 30)
        #expect(l.tick(at: expiry).actions == [.publish(LeaseRecord(gateway: "gw-b", until: expiry + 30, claim: true))])
        let settle = l.tick(at: expiry).nextDeadline ?? .infinity
        #expect(settle - expiry <= 10)
        #expect(l.tick(at: settle).actions.first == .acquired)
    }

    @Test func aGatewayThatDoesNotHearTheDeviceNeverTakesItOver() {
        var l = DeviceLease(gateway: "gw-b")
        _ = l.observed(LeaseRecord(gateway: "gw-a", until: Self.t0), at: Self.t0)
        #expect(l.standing(at: Self.t0 + 1) == .lapsed("gw-a"))
        #expect(l.tick(at: Self.t0 + 100).actions == [])
        #expect(l.tick(at: Self.t0 + 100).nextDeadline == nil)
    }

    @Test(arguments: [["gw-a", "gw-b"], ["gw-b", "gw-a"], ["gw-c", "gw-a", "gw-b"]])
    func simultaneousClaimsEndWithOneOwnerTheLowestID(_ ids: [String]) {
        var topic = FakeOwnerTopic()
        var leases = ids.map { DeviceLease(gateway: $0) }
        let start = Self.t0
        // The old owner's lease lapsed; everyone hears the device at the same moment.
        for i in leases.indices {
            _ = leases[i].observed(LeaseRecord(gateway: "gw-old", until: start - 1), at: start)
        }
        for i in leases.indices { topic.take(leases[i].setCanServe(true, at: start)) }
        #expect(topic.queue.count == ids.count, "everyone claimed")
        topic.deliver(to: &leases, at: start + 0.1)
        var now = start
        for _ in 0..<40 {
            now += 0.5
            for i in leases.indices { topic.take(leases[i].tick(at: now)) }
            topic.deliver(to: &leases, at: now)
            let owners = leases.filter(\.isOwner).map(\.gateway)
            #expect(owners.count <= 1, "two owners at once: \(owners)")
        }
        #expect(leases.filter(\.isOwner).map(\.gateway) == ["gw-a"])
        #expect(topic.retained?.gateway == "gw-a", "the retained record names the winner")
    }

    @Test func twoOwnersKeepTheLowerIDAndTheOtherReportsTheLoss() {
        var l = DeviceLease(gateway: "gw-b")
        _ = l.setCanServe(true, at: Self.t0)
        _ = l.tick(at: Self.t0 + 2)
        #expect(l.isOwner)
        #expect(l.observed(LeaseRecord(gateway: "gw-a", until: Self.t0 + 40), at: Self.t0 + 3).actions == [.lost(to: "gw-a")])
        var m = DeviceLease(gateway: "gw-a")
        _ = m.setCanServe(true, at: Self.t0)
        _ = m.tick(at: Self.t0 + 2)
        let kept = m.observed(LeaseRecord(gateway: "gw-b", until: Self.t0 + 40), at: Self.t0 + 3)
        #expect(kept.actions == [.publish(LeaseRecord(gateway: "gw-a", until: Self.t0 + 32))], "a higher id's record is answered")
        #expect(m.isOwner)
    }

    /// A gateway that starts while another owns the device may claim before the retained
    /// record reaches it; the lowest-id rule then took the device from its owner (and a
    /// link that worked was dropped). The owner answers a claim and keeps it.
    @Test(arguments: ["gw-a", "gw-z"])
    func anIncumbentKeepsTheDeviceAgainstALaterClaim(_ newcomer: String) {
        var topic = FakeOwnerTopic()
        var leases = [DeviceLease(gateway: "gw-m")]
        topic.take(leases[0].setCanServe(true, at: Self.t0))
        topic.deliver(to: &leases, at: Self.t0)
        topic.take(leases[0].tick(at: Self.t0 + 2))
        topic.deliver(to: &leases, at: Self.t0 + 2)
        #expect(leases[0].isOwner)
        // The newcomer hears the device before the broker's retained record reached it.
        leases.append(DeviceLease(gateway: newcomer))
        topic.take(leases[1].setCanServe(true, at: Self.t0 + 3))
        #expect(leases[1].isClaiming)
        topic.deliver(to: &leases, at: Self.t0 + 3)
        var now = Self.t0 + 3
        for _ in 0..<20 {
            now += 0.5
            for i in leases.indices { topic.take(leases[i].tick(at: now)) }
            topic.deliver(to: &leases, at: now)
        }
        #expect(leases.filter(\.isOwner).map(\.gateway) == ["gw-m"], "the owner keeps it")
        #expect(topic.retained?.gateway == "gw-m" && topic.retained?.claim == false)
        #expect(leases[1].standing(at: now) == .heldBy("gw-m", until: topic.retained?.until ?? 0))
    }

    @Test func claimsSayClaimOnTheWire() throws {
        let claim = LeaseRecord(gateway: "gw", until: 12.5, claim: true)
        #expect(String(decoding: claim.jsonBytes(), as: UTF8.self) == "{\"gateway\":\"gw\",\"until\":12.5,\"claim\":true}")
        #expect(try LeaseRecord(json: claim.jsonBytes()) == claim)
        #expect(try LeaseRecord(json: Array("{\"gateway\":\"gw\",\"until\":1}".utf8)).claim == false, "absent: a held lease")
        #expect(throws: LeasePayloadError.wrongType("claim")) { try LeaseRecord(json: Array("{\"gateway\":\"gw\",\"until\":1,\"claim\":1}".utf8)) }
    }

    @Test func ourOwnRecordAfterARestartIsOursAtOnce() {
        var l = DeviceLease(gateway: "gw-a")
        _ = l.observed(LeaseRecord(gateway: "gw-a", until: Self.t0 + 20), at: Self.t0)
        #expect(l.setCanServe(true, at: Self.t0).actions == [.acquired, .publish(LeaseRecord(gateway: "gw-a", until: Self.t0 + 30))])
    }

    @Test func releaseClearsTheRecord() {
        var l = DeviceLease(gateway: "gw-a")
        _ = l.setCanServe(true, at: Self.t0)
        _ = l.tick(at: Self.t0 + 2)
        #expect(l.release(at: Self.t0 + 3).actions == [.clear, .lost(to: nil)])
        #expect(l.tick(at: Self.t0 + 100).actions == [])
    }
}

@Suite("Lease record JSON")
struct LeaseRecordTests {
    @Test func roundTrips() throws {
        let r = LeaseRecord(gateway: "attune-kitchen \"q\" \\ \u{1}é", until: 1796042144.06)
        #expect(try LeaseRecord(json: r.jsonBytes()) == r)
        #expect(String(decoding: LeaseRecord(gateway: "g", until: 12.5).jsonBytes(), as: UTF8.self)
                == #"{"gateway":"g","until":12.5}"#)
    }

    @Test func ignoresUnknownKeys() throws {
        #expect(try LeaseRecord(json: Array(#"{"until": 5, "gateway": "x", "v": [1, {"a": null}]}"#.utf8))
                == LeaseRecord(gateway: "x", until: 5))
    }

    @Test(arguments: [
        ("", LeasePayloadError.notJSON),
        ("{", .notJSON),
        ("[1,2]", .wrongType("payload")),
        ("\"x\"", .wrongType("payload")),
        (#"{"until": 5}"#, .missingField("gateway")),
        (#"{"gateway": "x"}"#, .missingField("until")),
        (#"{"gateway": 7, "until": 5}"#, .wrongType("gateway")),
        (#"{"gateway": "x", "until": "5"}"#, .wrongType("until")),
        (#"{"gateway": "x", "until": true}"#, .wrongType("until")),
        (#"{"gateway": "x", "until": null}"#, .wrongType("until")),
        (#"{"gateway": "", "until": 5}"#, .badGateway),
        (#"{"gateway": "x", "until": -1}"#, .badUntil),
    ])
    func hostilePayloadsAreTypedErrors(_ payload: String, _ expected: LeasePayloadError) {
        #expect(throws: expected) { try LeaseRecord(json: Array(payload.utf8)) }
    }

    @Test func hugeNumbersAndPayloadsAreRefused() {
        #expect(throws: LeasePayloadError.self) { try LeaseRecord(json: Array(#"{"gateway": "x", "until": 1e999}"#.utf8)) }
        #expect(throws: LeasePayloadError.tooLong(2000)) { try LeaseRecord(json: Array(repeating: 0x20, count: 2000)) }
        let long = String(repeating: "g", count: 300)
        #expect(throws: LeasePayloadError.badGateway) { try LeaseRecord(json: Array(#"{"gateway": "\#(long)", "until": 1}"#.utf8)) }
        let deep = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(throws: LeasePayloadError.self) { try LeaseRecord(json: Array(#"{"gateway": "x", "until": 1, "d": \#(deep)}"#.utf8)) }
    }
}
