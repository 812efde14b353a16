import ATT

extension GATTClient {
    /// Subscriber counting for ``GATTClientCommand/subscribe(valueHandle:_:)``: the
    /// characteristic is described from the engine's database.
    mutating func subscribe(_ id: GATTRequestID, valueHandle: AttributeHandle, kind: SubscriptionKind?, delta: Int,
                            into actions: inout [GATTClientAction]) {
        if delta < 0 {
            guard let kind, let record = subscriptionTable.record(valueHandle) else {
                actions.append(.complete(id, .success(.done)))
                return
            }
            subscribe(id, record, kind: kind, delta: delta, into: &actions)
            return
        }
        if let record = subscriptionTable.record(valueHandle) {
            subscribe(id, record, kind: kind ?? record.kind, delta: delta, into: &actions)
            return
        }
        guard let characteristic = database.characteristic(valueHandle: valueHandle) else {
            actions.append(.complete(id, .failure(.invalidArgument("no discovered characteristic has value handle \(valueHandle)"))))
            return
        }
        guard let cccd = characteristic.clientConfigurationHandle else {
            actions.append(.complete(id, .failure(.invalidArgument("characteristic \(valueHandle) has no Client Characteristic Configuration descriptor"))))
            return
        }
        let chosen: SubscriptionKind
        if let kind {
            chosen = kind
        } else if characteristic.properties.contains(.notify) {
            chosen = .notify
        } else if characteristic.properties.contains(.indicate) {
            chosen = .indicate
        } else {
            actions.append(.complete(id, .failure(.invalidArgument("characteristic \(valueHandle) can neither notify nor indicate"))))
            return
        }
        let service = database.serviceIndex(containing: valueHandle).map { database.services[$0].uuid } ?? BluetoothUUID(0)
        let record = Subscription(serviceUUID: service, characteristicUUID: characteristic.uuid, valueHandle: valueHandle,
                                  configurationHandle: cccd, kind: chosen)
        subscribe(id, record, kind: chosen, delta: delta, into: &actions)
    }

    /// Only a change of the CCCD value costs a write; the table changes at once and is
    /// rolled back if the write fails.
    mutating func subscribe(_ id: GATTRequestID, _ record: Subscription, kind: SubscriptionKind, delta: Int,
                            into actions: inout [GATTClientAction]) {
        guard let write = subscriptionTable.change(record, kind: kind, by: delta) else {
            actions.append(.complete(id, .success(.done)))
            return
        }
        queue.append(Pending(id: id, procedure: WriteCharacteristicValueProcedure(handle: write.cccd, value: Self.cccd(write.value)),
                             purpose: .subscription(record, kind: kind, delta: delta)))
    }

    /// A subscriber's CCCD write finished: a refused write does not count, and a change
    /// of the set is reported for the owner to keep.
    mutating func subscriptionWritten(_ record: Subscription, kind: SubscriptionKind, delta: Int, failed: Bool,
                                      into actions: inout [GATTClientAction]) {
        if failed {
            _ = subscriptionTable.change(record, kind: kind, by: -delta)
        } else {
            actions.append(.deliver(.subscriptionsChanged(subscriptionTable.records)))
        }
    }

    // MARK: Restoration

    /// After start-up discovery: each subscription of the last link is found again by its
    /// UUIDs and its CCCD written; one whose characteristic is gone ends. Returns how many
    /// writes were queued: `.ready` follows once each is answered.
    mutating func restoreSubscriptions(_ list: [Subscription], in found: DiscoveredDatabase,
                                       into actions: inout [GATTClientAction]) -> Int {
        var changed = false
        var queued = 0
        for old in list {
            guard let moved = old.relocated(in: found) else {
                changed = true
                actions.append(.deliver(.subscriptionEnded(old, .attributeNotFound(
                    "characteristic \(old.characteristicUUID) of service \(old.serviceUUID)"))))
                continue
            }
            if moved != old {
                changed = true
                actions.append(.deliver(.subscriptionMoved(moved, from: old.valueHandle)))
            }
            if rewrite(moved, purpose: .restore(moved)) { queued += 1 }
        }
        if changed { actions.append(.deliver(.subscriptionsChanged(subscriptionTable.records))) }
        return queued
    }

    /// Counts a restored subscription and queues its CCCD write; false when the table
    /// already had it, so nothing is written.
    private mutating func rewrite(_ record: Subscription, purpose: Purpose) -> Bool {
        guard let write = subscriptionTable.change(record, kind: record.kind, by: 1) else { return false }
        enqueue(WriteCharacteristicValueProcedure(handle: write.cccd, value: Self.cccd(write.value)), purpose: purpose)
        return true
    }

    /// One restoring CCCD write was answered.
    mutating func restoreWritten(_ record: Subscription, _ result: Result<GATTClientResponse, GATTClientError>,
                                 into actions: inout [GATTClientAction]) {
        switch result {
        case .success:
            actions.append(.deliver(.subscriptionRestored(record)))
        case .failure(let error):
            subscriptionTable.remove(record.valueHandle)
            actions.append(.deliver(.subscriptionEnded(record, error)))
            actions.append(.deliver(.subscriptionsChanged(subscriptionTable.records)))
        }
    }

    /// Start-up discovery failed on a live bearer: the subscriptions to restore cannot be
    /// found again, so each ends with that failure rather than being written blind.
    func abandonRestoration(_ restoring: [Subscription], _ error: GATTClientError, into actions: inout [GATTClientAction]) {
        guard !restoring.isEmpty else { return }
        for old in restoring { actions.append(.deliver(.subscriptionEnded(old, error))) }
        actions.append(.deliver(.subscriptionsChanged(subscriptionTable.records)))
    }

    /// After a Service Changed rediscovery of `range`: subscriptions there follow their
    /// characteristic to its new handles (and are written again), or end.
    mutating func relocateSubscriptions(in range: AttributeHandleRange, into actions: inout [GATTClientAction]) {
        let affected = subscriptionTable.records.filter { range.contains($0.valueHandle) }
        guard !affected.isEmpty else { return }
        for old in affected {
            subscriptionTable.remove(old.valueHandle)
            guard let moved = old.relocated(in: database) else {
                actions.append(.deliver(.subscriptionEnded(old, .attributeNotFound(
                    "characteristic \(old.characteristicUUID) of service \(old.serviceUUID)"))))
                continue
            }
            if moved.valueHandle != old.valueHandle { actions.append(.deliver(.subscriptionMoved(moved, from: old.valueHandle))) }
            _ = rewrite(moved, purpose: .relocation(moved))
        }
        actions.append(.deliver(.subscriptionsChanged(subscriptionTable.records)))
    }

    static func cccd(_ value: UInt16) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
    }
}
