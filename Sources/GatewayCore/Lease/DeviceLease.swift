/// One device's lease among several gateways on one broker, as a sans-I/O machine.
///
/// The retained `attune/dev/<name>/owner` record says who holds the device's link and
/// until when. A gateway that can serve the device (it hears it) takes over when there
/// is no record, the record lapsed, or the owner's status topic says `offline`: it
/// publishes a claim, waits ``LeaseConfiguration/settle`` for a competing one, and then
/// owns the device and renews every ``LeaseConfiguration/renewEvery``. An owner that sees
/// a claim answers with its own record and keeps the device; a claimer that sees an
/// owner's record yields. When two gateways claim at once (or two owners meet after a
/// partition), each sees the other's record and the lowest gateway id wins, on both
/// sides, so they end with exactly one owner; the winner publishes again so the retained
/// record names it.
///
/// Time is wall-clock seconds since 1970, passed in (the record is compared across
/// machines); nothing here reads a clock. Gateway statuses are kept for at most
/// ``maximumStatuses`` gateways.
public struct DeviceLease: Sendable {
    /// This gateway's `client_id`.
    public let gateway: String
    public var configuration: LeaseConfiguration
    var state: LeaseState = .watching(WatchingLease())
    /// The last record seen on the owner topic (nil: empty).
    public private(set) var record: LeaseRecord?
    /// Gateways whose status topic said offline (true) or online (false).
    var offline: [String: Bool] = [:]
    /// We hear the device and may serve it.
    public private(set) var canServe = false
    /// This instance claimed the device before: a record naming us is then the echo of a
    /// claim we gave up, not a lease we held before a restart.
    var hasClaimed = false
    /// Where in the renewal period this lease renews, from 0 up to 1: the first renewal
    /// after acquiring comes that fraction of ``LeaseConfiguration/renewEvery`` late. A
    /// gateway acquires most of its devices at once (on start, when the broker answers),
    /// and renewals that stayed in step would reach the broker as one burst every period,
    /// queued ahead of the values; phases spread over the devices spread them over it.
    public let renewalPhase: Double

    /// Statuses kept; more gateways than this on one broker are not tracked.
    public static let maximumStatuses = 1024

    public init(gateway: String, configuration: LeaseConfiguration = LeaseConfiguration(), renewalPhase: Double = 0) {
        self.gateway = gateway
        self.configuration = configuration
        self.renewalPhase = renewalPhase.isFinite ? min(max(0, renewalPhase), 1) : 0
    }

    /// True while this gateway owns the device.
    public var isOwner: Bool {
        if case .owning = state { return true }
        return false
    }

    /// True while this gateway's claim is waiting to settle.
    public var isClaiming: Bool {
        if case .claiming = state { return true }
        return false
    }

    /// Where the device's lease stands, for `--explain`: the decision this machine acts on.
    public func standing(at now: Double) -> LeaseStanding {
        switch state {
        case .owning: return .mine
        case .claiming: return .claiming
        case .watching:
            guard let r = record else { return .free }
            if r.gateway == gateway && !hasClaimed { return .free }
            if r.until <= now || offline[r.gateway] == true { return .lapsed(r.gateway) }
            return .heldBy(r.gateway, until: r.until)
        }
    }

    /// The earliest wall-clock time ``tick(at:)`` has work to do.
    public var nextDeadline: Double? {
        switch state {
        case .owning(let s): return s.renewAt
        case .claiming(let s): return s.settleAt
        case .watching:
            guard canServe, let r = record, offline[r.gateway] != true,
                  r.gateway != gateway || hasClaimed else { return nil }
            return r.until
        }
    }

    // MARK: Inputs

    /// The retained owner record changed (nil: it was cleared or expired on the broker).
    public mutating func observed(_ record: LeaseRecord?, at now: Double) -> LeaseStep {
        var actions: [LeaseAction] = []
        self.record = record
        switch state {
        case .watching:
            break
        case .claiming(let s):
            if let r = record, r.gateway != gateway, r.until > now {
                if !r.claim || r.gateway < gateway {
                    // An owner's record (it was there first) or a lower id's competing claim.
                    state = .watching(WatchingLease())
                    return finish(at: now, actions)
                }
                // We win the tie: make the retained record ours again.
                actions.append(.publish(LeaseRecord(gateway: gateway, until: s.until, claim: true)))
            } else if record == nil {
                actions.append(.publish(LeaseRecord(gateway: gateway, until: s.until, claim: true)))
            }
        case .owning(let s):
            if let r = record, r.gateway != gateway, r.until > now {
                if !r.claim && r.gateway < gateway {
                    // Two owners (their claims crossed a partition): the lowest id keeps it.
                    state = .watching(WatchingLease())
                    actions.append(.lost(to: r.gateway))
                    return finish(at: now, actions)
                }
                // A claim against our lease, or a higher id's record: ours stands, and says so.
                actions.append(.publish(LeaseRecord(gateway: gateway, until: s.until)))
            } else if record == nil {
                actions.append(.publish(LeaseRecord(gateway: gateway, until: s.until)))
            }
        }
        return finish(at: now, actions)
    }

    /// A gateway's status topic (`attune/gateway/<id>/status`) said online or offline.
    public mutating func gatewayStatus(_ id: String, online: Bool, at now: Double) -> LeaseStep {
        if offline[id] != nil || offline.count < Self.maximumStatuses { offline[id] = !online }
        return finish(at: now, [])
    }

    /// Whether this gateway hears the device and may serve it. An owner that can no
    /// longer serve it keeps the lease until ``release(at:)``; the gateway decides.
    public mutating func setCanServe(_ value: Bool, at now: Double) -> LeaseStep {
        canServe = value
        return finish(at: now, [])
    }

    /// Give the device up (shutting down, or the device was removed from the config).
    public mutating func release(at now: Double) -> LeaseStep {
        var actions: [LeaseAction] = []
        canServe = false
        switch state {
        case .watching: break
        case .claiming, .owning:
            let wasOwner = isOwner
            state = .watching(WatchingLease())
            record = nil
            actions.append(.clear)
            if wasOwner { actions.append(.lost(to: nil)) }
        }
        return finish(at: now, actions)
    }

    /// Time passed: claims settle, owners renew, lapsed leases are taken over.
    public mutating func tick(at now: Double) -> LeaseStep {
        finish(at: now, [])
    }

    // MARK: Internals

    /// Applies the due timers and the takeover rule, then reports the next deadline.
    private mutating func finish(at now: Double, _ actions: [LeaseAction]) -> LeaseStep {
        var actions = actions
        guard now.isFinite else { return LeaseStep(actions: actions, nextDeadline: nextDeadline) }
        switch state {
        case .claiming(let s) where now >= s.settleAt:
            state = .owning(OwningLease(until: s.until, renewAt: now))
            actions.append(.acquired)
            // At once: the retained record stops saying "claim" and holds the lease.
            renew(at: now, into: &actions, acquiring: true)
        case .owning(let s) where now >= s.renewAt:
            renew(at: now, into: &actions)
        case .watching where canServe && mayTakeOver(at: now):
            let until = now + configuration.duration
            hasClaimed = true
            if let r = record, r.gateway == gateway, r.until > now {
                // Our own record (we restarted): nobody else holds it, so carry on.
                state = .owning(OwningLease(until: r.until, renewAt: now))
                actions.append(.acquired)
                renew(at: now, into: &actions, acquiring: true)
            } else {
                state = .claiming(ClaimingLease(until: until, settleAt: now + configuration.settle))
                record = LeaseRecord(gateway: gateway, until: until, claim: true)
                actions.append(.publish(LeaseRecord(gateway: gateway, until: until, claim: true)))
            }
        default:
            break
        }
        return LeaseStep(actions: actions, nextDeadline: nextDeadline)
    }

    private mutating func renew(at now: Double, into actions: inout [LeaseAction], acquiring: Bool = false) {
        let until = now + configuration.duration
        // The phase delays only the first renewal, and never past one renewal period
        // before `until`, so a lost renewal is still harmless.
        let late = acquiring ? min(configuration.renewEvery * renewalPhase,
                                   max(0, configuration.duration - 2 * configuration.renewEvery)) : 0
        state = .owning(OwningLease(until: until, renewAt: now + configuration.renewEvery + late))
        actions.append(.publish(LeaseRecord(gateway: gateway, until: until)))
    }

    private func mayTakeOver(at now: Double) -> Bool {
        guard let r = record else { return true }
        return (r.gateway == gateway && !hasClaimed) || r.until <= now || offline[r.gateway] == true
    }
}
