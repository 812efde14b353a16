import Foundation
import GatewayCore
import MQTTClient

extension Gateway {
    /// Carries out one lease step of a device: records published or cleared, the device
    /// handed to the pool when acquired and taken from it when lost.
    func runLease(_ name: String, _ step: LeaseStep) {
        for action in step.actions {
            switch action {
            case .publish(let record): publishLease(name, record)
            case .clear: publishLease(name, nil)
            case .acquired: leaseAcquired(name)
            case .lost: leaseLost(name)
            }
        }
        // The standing changed hands: `--explain` says so (renewals alone do not republish it).
        if step.actions.contains(where: { if case .publish = $0 { false } else { true } }) { publishExplain(name) }
        rearm()
    }

    /// `attune/dev/<name>/owner`, retained, expiring on the broker when the lease does (so
    /// a dead gateway's record vanishes too); nil clears it with an empty retained payload.
    func publishLease(_ name: String, _ record: LeaseRecord?) {
        guard let record else {
            try? mqtt.publish(MQTTOutboundMessage(topic: topics.owner(name), payload: [], qos: .atLeastOnce, retain: true))
            return
        }
        let remaining = record.until - Self.timestamp()
        // At least 1 s (0 would mean "never expires"), at most a day; our own records are finite.
        let seconds = remaining.isFinite ? min(max(1, remaining.rounded(.up)), 86_400) : 1
        try? mqtt.publish(MQTTOutboundMessage(topic: topics.owner(name), payload: record.jsonBytes(), qos: .atLeastOnce,
                                              retain: true, messageExpiry: UInt32(seconds)))
    }

    /// Ours now: the pool may connect it, through an adapter that heard it.
    private func leaseAcquired(_ name: String) {
        guard let device = devices[name] else { return }
        let policy = Self.policy(device.configuration)
        guard policy != .never else { return }
        let now = clock.now
        let affinity = device.configuration.adapters.map { AdapterID($0) }
        runPool(pool.add(device.id, policy: policy, affinity: affinity, at: now))
        // The pool keeps what adapters heard only for the devices it serves: tell it what
        // they heard while the lease was settling.
        for index in device.heard.keys.sorted() {
            guard let heard = device.heard[index], adapters.indices.contains(index),
                  now.duration(since: heard.at) <= pool.recentWindow else { continue }
            runPool(pool.advertisement(from: device.id, on: adapters[index].id, at: now))
        }
    }

    /// Another gateway has it (or we gave it up): the pool ends its link.
    private func leaseLost(_ name: String) {
        guard let device = devices[name] else { return }
        runPool(pool.remove(device.id, at: clock.now))
        devices[name]?.adapter = nil
    }

    /// A connectable device this gateway hears or holds may be claimed.
    func leaseCanServe(_ name: String) {
        guard leasesReady, let lease = leases[name], !lease.canServe else { return }
        var updated = lease
        let step = updated.setCanServe(true, at: Self.timestamp())
        leases[name] = updated
        runLease(name, step)
    }

    /// Once a second: a device neither connected nor heard within the pool's window can no
    /// longer be served from here. An owner gives such a device up, so a gateway that
    /// hears it can take it over.
    func refreshLeases() {
        guard leasesReady else { return }
        let now = clock.now, wall = Self.timestamp()
        for name in leases.keys.sorted() {
            guard var lease = leases[name], let device = devices[name] else { continue }
            let serves = device.handle != nil || device.linkAdapter != nil || device.heard.contains { index, heard in
                adapters[safe: index]?.up == true && now.duration(since: heard.at) <= pool.recentWindow
            }
            guard serves != lease.canServe else { continue }
            let step = serves ? lease.setCanServe(true, at: wall) : (lease.isOwner || lease.isClaiming)
                ? lease.release(at: wall) : lease.setCanServe(false, at: wall)
            leases[name] = lease
            runLease(name, step)
        }
    }

    func tickLeases() {
        let wall = Self.timestamp()
        // Only the leases due, in a stable order: with renewals spread over the period a
        // tick finds a few dozen of a thousand.
        let due = leases.compactMap { name, lease in lease.nextDeadline.map { $0 <= wall } == true ? name : nil }
        for name in due.sorted() {
            guard var lease = leases[name], let due = lease.nextDeadline, due <= wall else { continue }
            let step = lease.tick(at: wall)
            leases[name] = lease
            runLease(name, step)
        }
    }

    /// The broker's answers: once the owner subscription is acknowledged, the retained
    /// records are on their way (each claim still settles, so one that is late is seen),
    /// and the devices already heard or connected may be claimed.
    func brokerEvent(_ event: MQTTConnectionEvent) {
        guard case .subscribed(let filter, let granted) = event, filter == topics.ownerFilter, granted != nil,
              !leasesReady, !stopped else { return }
        leasesReady = true
        refreshLeases()
    }

    /// Owner records and gateway statuses; false for any other message.
    func leaseMessage(_ message: MQTTMessage) -> Bool {
        let wall = Self.timestamp()
        if let name = Self.level(message.topic, prefix: "\(topics.base)/dev/", suffix: "/owner") {
            guard var lease = leases[name] else { return true }
            var record: LeaseRecord?
            if !message.payload.isEmpty {
                do throws(LeasePayloadError) { record = try LeaseRecord(json: message.payload) } catch {
                    // Anyone may write the topic: a record we cannot read holds nothing.
                    devices[name]?.lastError = error.description
                }
            }
            let step = lease.observed(record, at: wall)
            leases[name] = lease
            runLease(name, step)
            return true
        }
        if let id = Self.level(message.topic, prefix: "\(topics.base)/gateway/", suffix: "/status") {
            guard let text = message.text, text == "online" || text == "offline" else { return true }
            for name in leases.keys.sorted() {
                guard var lease = leases[name] else { continue }
                let step = lease.gatewayStatus(id, online: text == "online", at: wall)
                leases[name] = lease
                runLease(name, step)
            }
            return true
        }
        return false
    }

    /// The one topic level between `prefix` and `suffix`, or nil.
    static func level(_ topic: String, prefix: String, suffix: String) -> String? {
        guard topic.hasPrefix(prefix), topic.hasSuffix(suffix), topic.count > prefix.count + suffix.count else { return nil }
        let middle = topic.dropFirst(prefix.count).dropLast(suffix.count)
        return middle.contains("/") ? nil : String(middle)
    }

    static func describe(_ standing: LeaseStanding) -> String {
        switch standing {
        case .mine: "mine"
        case .claiming: "claiming"
        case .heldBy(let gateway, let until): "held by \(gateway) until \(until)"
        case .lapsed(let gateway): "lapsed (was \(gateway))"
        case .free: "free"
        }
    }
}
