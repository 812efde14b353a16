import BluetoothCore

/// The BTHome device information byte (bthome.io/format): the first byte of the service data.
public struct BTHomeDeviceInfo: Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bit 0: the objects are AES-CCM encrypted.
    public var isEncrypted: Bool { rawValue & 0x01 != 0 }
    /// Bit 1: the device's address follows (6 bytes, least significant first). The spec now
    /// reserves this bit; early v2 devices set it and the reference parser (bthome-ble)
    /// still honours it, so this decoder does too.
    public var carriesAddress: Bool { rawValue & 0x02 != 0 }
    /// Bit 2: the device advertises on events (a button), not at a regular interval, so
    /// silence does not mean it is gone.
    public var isTriggerBased: Bool { rawValue & 0x04 != 0 }
    /// Bits 5–7: the BTHome version; this decoder reads version 2.
    public var version: UInt8 { rawValue >> 5 }
}

/// One decoded BTHome object.
public struct BTHomeObject: Hashable, Sendable {
    public let type: BTHomeObjectType
    /// The offset of the object id in the service data.
    public let offset: Int
    public let value: DecodedValue
}

/// A decoded BTHome v2 advertisement.
public struct BTHomePacket: Hashable, Sendable {
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
