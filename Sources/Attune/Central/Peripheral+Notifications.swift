extension Peripheral {
    /// Turns notifications (or, when the characteristic only indicates, indications) on
    /// or off by writing its Client Characteristic Configuration, like
    /// `setNotifyValue(_:for:)`. Subscriptions are remembered and written again after
    /// every reconnect.
    public func setNotifyValue(_ enabled: Bool, for characteristic: Characteristic) async throws(AttuneError) {
        let kind: SubscriptionKind
        if characteristic.properties.contains(.notify) {
            kind = .notify
        } else if characteristic.properties.contains(.indicate) {
            kind = .indicate
        } else {
            throw .operationNotSupported("characteristic \(characteristic.uuid) neither notifies nor indicates")
        }
        guard enabled else {
            // The engine clears the CCCD when its one subscriber leaves.
            _ = try await request(.unsubscribe(valueHandle: characteristic.valueHandle))
            finishListeners(characteristic.valueHandle, error: nil)
            return
        }
        // Like Core Bluetooth, turning notifications on twice is one subscription.
        if isNotifying(characteristic) { return }
        var descriptors = characteristic.descriptors ?? knownCharacteristic(characteristic)?.descriptors
        if descriptors == nil { descriptors = try await discoverDescriptors(for: characteristic) }
        guard let cccd = descriptors?.first(where: { $0.uuid == GATTAttributeType.clientCharacteristicConfiguration }) else {
            throw .attributeNotFound("Client Characteristic Configuration of \(characteristic.uuid)")
        }
        let service = knownTree?.first { $0.startHandle == characteristic.serviceHandle }?.uuid
            ?? revealed?.first { $0.startHandle == characteristic.serviceHandle }?.uuid
            ?? BluetoothUUID(0)
        // The engine keeps the subscription (and restores it on the next link); the store
        // hears of it through the engine's `subscriptionsChanged`.
        _ = try await request(.subscribeDescribed(Subscription(
            serviceUUID: service, characteristicUUID: characteristic.uuid, valueHandle: characteristic.valueHandle,
            configurationHandle: cccd.handle, kind: kind)))
    }

    /// The characteristic's notified or indicated values, from now on. The stream ends
    /// when notifications are turned off, and fails with the reason when the
    /// subscription ends (disconnect without reconnect, characteristic gone, CCCD write
    /// refused after a reconnect).
    ///
    /// Nothing is lost silently. A consumer that falls behind holds the link up: once
    /// ``notificationBufferCapacity`` values wait, the link is read no further, so the
    /// kernel socket buffer or the controller holds what follows. Only a consumer that
    /// stays full for longer than ``notificationStallLimit`` loses values, the oldest
    /// first, and the first value it then takes says how many in
    /// ``Notification/lostBefore``; ``statistics`` counts them. Notifications the
    /// transport itself dropped (the userland host's per-link bound) are counted in the
    /// same ``Notification/lostBefore``.
    public func notifications(for characteristic: Characteristic) -> NotificationStream {
        let id = nextListener
        nextListener += 1
        let handle = characteristic.valueHandle
        let counters = self.counters
        let buffer = DeliveryBuffer<Notification>(
            capacity: Self.notificationBufferCapacity,
            onLoss: { n in counters.update { $0.notificationsLost += n } },
            onTermination: { [weak self] in
                guard let self else { return }
                Task { await self.removeListener(handle, id) }
            })
        listeners[handle, default: [:]][id] = buffer
        return NotificationStream(buffer)
    }

    private func removeListener(_ handle: AttributeHandle, _ id: Int) {
        listeners[handle]?.removeValue(forKey: id)
        if listeners[handle]?.isEmpty == true { listeners[handle] = nil }
    }

    func yieldValue(_ value: ArraySlice<UInt8>, isIndication: Bool, for handle: AttributeHandle) {
        guard listeners[handle] != nil else { return }
        offer(Array(value), isIndication: isIndication, for: handle)
    }

    /// Where the one value a received PDU carries lies in it, when the PDU carries exactly
    /// one (a notification or an indication, not a Multiple Handle Value Notification),
    /// someone listens for it, and the engine's value is a slice of the PDU's own
    /// storage: the PDU can then become the value (``offer(_:isIndication:for:)``) once
    /// the actions are done with, and `apply` skips the delivery at `action`.
    func carriedValue(in actions: [GATTClientAction], of pdu: [UInt8])
        -> (action: Int, handle: AttributeHandle, isIndication: Bool, value: Range<Int>)? {
        var found: (action: Int, handle: AttributeHandle, isIndication: Bool, value: Range<Int>)?
        for (i, action) in actions.enumerated() {
            let delivered: (handle: AttributeHandle, value: ArraySlice<UInt8>, isIndication: Bool)
            switch action {
            case .deliver(.notification(let h, let v)): delivered = (h, v, false)
            case .deliver(.indication(let h, let v)): delivered = (h, v, true)
            default: continue
            }
            // Several values: each is copied out, as the PDU can become only one.
            guard found == nil, !delivered.value.isEmpty, listeners[delivered.handle] != nil,
                  Self.lies(delivered.value, in: pdu) else { return nil }
            found = (i, delivered.handle, delivered.isIndication, delivered.value.indices)
        }
        return found
    }

    /// Whether `slice` is a slice of `array`'s own storage (and not of a copy).
    private static func lies(_ slice: ArraySlice<UInt8>, in array: [UInt8]) -> Bool {
        guard slice.startIndex >= 0, slice.endIndex <= array.count else { return false }
        return array.withUnsafeBufferPointer { whole in
            slice.withUnsafeBufferPointer { part in
                whole.baseAddress.map { $0 + slice.startIndex } == part.baseAddress
            }
        }
    }

    /// Hands a value to the characteristic's listeners.
    func offer(_ value: [UInt8], isIndication: Bool, for handle: AttributeHandle) {
        guard let group = listeners[handle] else { return }
        var notification = Notification(value: value, isIndication: isIndication, receivedAt: batchReceivedAt)
        // What the transport dropped before it (taken after the batch that was waiting
        // when the drops happened, so they fall before this one on the wire).
        if !droppedNotifications.isEmpty { notification.lostBefore = droppedNotifications.take(for: handle) }
        for buffer in group.values where !buffer.offer(notification) { fullListeners.append(buffer) }
        // Counted per batch (``pump`` publishes it), not with a lock per value.
        batchNotifications += group.count
    }

    /// Holds the link until every listener that filled up has room again, or has been
    /// full for longer than the stall limit (it then drops and counts instead).
    func waitForListeners() async {
        while let full = fullListeners.popLast() {
            counters.update { $0.backPressurePauses += 1 }
            _ = await full.waitForRoom(stallLimit: notificationStallLimit)
        }
    }

    func finishListeners(_ handle: AttributeHandle, error: AttuneError?) {
        guard let group = listeners.removeValue(forKey: handle) else { return }
        for buffer in group.values { buffer.finish(throwing: error) }
    }

    /// After a rediscovery moved a subscribed characteristic, its listeners follow.
    func moveListeners(from old: AttributeHandle, to new: AttributeHandle) {
        guard old != new, let group = listeners.removeValue(forKey: old) else { return }
        listeners[new, default: [:]].merge(group) { a, _ in a }
    }
}
