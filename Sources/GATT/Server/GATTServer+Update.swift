import ATT

/// One client an update goes to, found by ``GATTServer/subscribers(of:where:into:)``:
/// how it subscribed, and where its state sits, so the update itself looks nothing up.
public struct GATTSubscriber: Hashable, Sendable {
    /// How a subscribed client receives a new value.
    public enum Delivery: Hashable, Sendable {
        /// A Handle Value Notification, encoded at once.
        case notification
        /// A queued Handle Value Indication, sent when the previous one is confirmed.
        case indication
    }

    public let connection: ConnectionID
    public let delivery: Delivery
    /// The client's slot in the connection table when it was found; checked before use,
    /// since a connection that closed in between moves the slots.
    let slot: Int
}

extension GATTServer {
    /// Appends to `subscribers` every connected client for which `include` holds and that
    /// subscribed to the characteristic at `valueHandle`: the first half of an update, in
    /// one pass over the links, each link's configuration read once. A client that
    /// enabled both gets notifications, as Core Bluetooth does. The caller checks each
    /// link's room before ``update(_:characteristic:to:at:into:)`` sends anything.
    public func subscribers(of valueHandle: AttributeHandle, where include: (ConnectionID) -> Bool,
                            into subscribers: inout [GATTSubscriber]) {
        guard let c = core.database.characteristic(valueHandle: valueHandle) else { return }
        let ids = connections.keys
        for slot in ids.indices where include(ids[slot]) {
            let configuration = core.configuration(of: c, connections[slot: slot].clientConfigurations)
            if configuration.contains(.notification) {
                // Not sent at all without the property, as `notify` refuses it.
                guard c.properties.contains(.notify) else { continue }
                subscribers.append(GATTSubscriber(connection: ids[slot], delivery: .notification, slot: slot))
            } else if configuration.contains(.indication), c.properties.contains(.indicate) {
                subscribers.append(GATTSubscriber(connection: ids[slot], delivery: .indication, slot: slot))
            }
        }
    }

    /// Stores `value` as the characteristic's and sends it to `subscribers`: a
    /// notification, truncated to ATT_MTU − 3 and encoded straight into `out`'s buffer,
    /// or a queued indication, as each subscribed. Notifications go out before any
    /// indication is queued; throws ``GATTServerError/indicationQueueFull(_:)`` at the
    /// first client whose indication queue is full, once the notifications have gone.
    public mutating func update(_ value: [UInt8], characteristic valueHandle: AttributeHandle,
                                to subscribers: [GATTSubscriber], at now: MonotonicTime,
                                into out: inout GATTServerOutput) throws(GATTServerError) {
        // Copied into the stored value's own storage: keeping the caller's array would
        // make the caller's next change to it copy it whole.
        if let i = core.database.index(of: valueHandle) { core.database.setValue(value[...], at: i) }
        var indicates = false
        for s in subscribers {
            guard s.delivery == .notification else {
                indicates = true
                continue
            }
            guard let slot = liveSlot(of: s) else { continue }
            let start = out.buffer.count
            // In place by slot: access by id would copy the client's state out and back.
            if (try? connections[slot: slot].bearer.sendNotification(valueHandle, value, into: &out.buffer)) != nil {
                out.commit(s.connection, from: start)
            }
        }
        guard indicates else { return }
        for s in subscribers where s.delivery == .indication {
            guard let slot = liveSlot(of: s) else { continue }
            guard connections[slot: slot].queuedIndicationCount < core.configuration.indicationQueueLimit else {
                throw .indicationQueueFull(s.connection)
            }
            let indication = IndicationID(rawValue: core.makeID())
            connections[slot: slot].indications.append(QueuedIndication(id: indication, handle: valueHandle, value: value,
                                                                        isServiceChanged: false))
            pumpIndications(on: s.connection, at: now, into: &out)
        }
    }

    /// The subscriber's slot, found again only when the table changed since.
    private func liveSlot(of s: GATTSubscriber) -> Int? {
        let ids = connections.keys
        return s.slot < ids.count && ids[s.slot] == s.connection ? s.slot : connections.slot(of: s.connection)
    }
}
