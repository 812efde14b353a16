extension Peripheral {
    /// Turns notifications (or, when the characteristic only indicates, indications) on
    /// or off by writing its Client Characteristic Configuration, like
    /// `setNotifyValue(_:for:)`. Subscriptions are remembered and written again after
    /// every reconnect.
    public func setNotifyValue(_ enabled: Bool, for characteristic: Characteristic) async throws(AttuneError) {
        let kind: NotificationKind
        if characteristic.properties.contains(.notify) {
            kind = .notification
        } else if characteristic.properties.contains(.indicate) {
            kind = .indication
        } else {
            throw .operationNotSupported("characteristic \(characteristic.uuid) neither notifies nor indicates")
        }
        var descriptors = characteristic.descriptors ?? knownCharacteristic(characteristic.valueHandle)?.descriptors
        if descriptors == nil { descriptors = try await discoverDescriptors(for: characteristic) }
        guard let cccd = descriptors?.first(where: { $0.uuid == GATTAttributeType.clientCharacteristicConfiguration }) else {
            throw .attributeNotFound("Client Characteristic Configuration of \(characteristic.uuid)")
        }
        _ = try await request(.writeValue(cccd.handle, Self.cccd(enabled ? kind.clientConfiguration : 0)))
        if enabled {
            let service = knownTree?.first { $0.startHandle == characteristic.serviceHandle }?.uuid
                ?? revealed?.first { $0.startHandle == characteristic.serviceHandle }?.uuid
                ?? BluetoothUUID(0)
            run(lifecycle.subscribed(Subscription(serviceUUID: service, characteristicUUID: characteristic.uuid,
                                                  valueHandle: characteristic.valueHandle,
                                                  configurationHandle: cccd.handle, kind: kind)))
        } else {
            run(lifecycle.unsubscribed(valueHandle: characteristic.valueHandle))
            finishListeners(characteristic.valueHandle, error: nil)
        }
    }

    /// The characteristic's notified or indicated values, from now on. The stream ends
    /// when notifications are turned off, and fails with the reason when the
    /// subscription ends (disconnect without reconnect, characteristic gone, CCCD write
    /// refused after a reconnect). A consumer that falls more than 4096 values behind
    /// loses the oldest ones, so memory stays bounded.
    public func notifications(for characteristic: Characteristic) -> AsyncThrowingStream<[UInt8], any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self,
                                                                       bufferingPolicy: .bufferingNewest(4096))
        let id = nextListener
        nextListener += 1
        let handle = characteristic.valueHandle
        listeners[handle, default: [:]][id] = continuation
        continuation.onTermination = { _ in
            Task { await self.removeListener(handle, id) }
        }
        return stream
    }

    private func removeListener(_ handle: AttributeHandle, _ id: Int) {
        listeners[handle]?.removeValue(forKey: id)
    }

    func yieldValue(_ value: [UInt8], for handle: AttributeHandle) {
        for continuation in listeners[handle]?.values ?? [:].values { continuation.yield(value) }
    }

    func finishListeners(_ handle: AttributeHandle, error: AttuneError?) {
        guard let group = listeners.removeValue(forKey: handle) else { return }
        for continuation in group.values { continuation.finish(throwing: error) }
    }

    /// After a rediscovery moved subscribed characteristics, their listeners follow.
    func moveListeners(from before: [Subscription], to after: [Subscription]) {
        for new in after {
            guard let old = before.first(where: { $0.serviceUUID == new.serviceUUID
                                                && $0.characteristicUUID == new.characteristicUUID }),
                  old.valueHandle != new.valueHandle, let group = listeners.removeValue(forKey: old.valueHandle)
            else { continue }
            listeners[new.valueHandle, default: [:]].merge(group) { a, _ in a }
        }
    }
}
