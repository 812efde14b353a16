import BluetoothCore

/// A decoded BTHome v2 advertisement.
public struct BTHomePacket: Hashable, Sendable {
    /// The first byte of the service data.
    public let deviceInfo: BTHomeDeviceInfo
    /// The address carried in the service data (legacy bit 1), if any.
    public let address: BluetoothAddress?
    /// The encryption counter, for encrypted advertisements.
    public let counter: UInt32?
    /// The objects in the order sent.
    public let objects: [BTHomeObject]
    /// Set when decoding stopped at an object id this decoder does not know: the spec has
    /// receivers keep the objects before it (senders put ids in ascending order so that new
    /// ids come last) and stop, since the unknown object's length is unknown.
    public let stoppedAt: SensorDecodingError?

    /// The packet id object (0x00), which repeats while the device resends one reading.
    public var packetID: UInt8? {
        guard let object = objects.first(where: { $0.type.id == 0x00 }),
              case let .number(n) = object.value.value else { return nil }
        return n.exactInteger.flatMap { UInt8(exactly: $0) }
    }

    /// The objects keyed by property; a property sent more than once gets `_1`, `_2`… in
    /// the order sent (bthome.io "Multiple measurements of the same type"). The packet id is
    /// left out (it is bookkeeping, not state).
    public var readings: [DecodedReading] {
        let published = objects.filter { $0.type.id != 0x00 }
        var totals: [String: Int] = [:]
        for object in published { totals[object.type.property, default: 0] += 1 }
        var seen: [String: Int] = [:]
        return published.map { object in
            let property = object.type.property
            seen[property, default: 0] += 1
            let key = (totals[property] ?? 0) > 1 ? "\(property)_\(seen[property] ?? 0)" : property
            return DecodedReading(key: key, value: object.value, isEvent: object.type.kind == .event)
        }
    }
}
