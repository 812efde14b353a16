import Attune

/// A random number generator that always returns the same value, so jitter is exact.
struct FixedRandom: RandomNumberGenerator, Sendable {
    var value: UInt64
    /// `fraction` in 0..<1 becomes the `Double.random(in: 0..<1)` result.
    init(fraction: Double) { value = UInt64(fraction * 9_007_199_254_740_992) << 11 }
    mutating func next() -> UInt64 { value }
}

extension [LifecycleAction] {
    var events: [LifecycleEvent] {
        compactMap { if case .deliver(let e) = $0 { e } else { nil } }
    }
    var phases: [LifecyclePhase] {
        events.compactMap { if case .phase(let p) = $0 { p } else { nil } }
    }
    var schedules: [MonotonicTime] {
        compactMap { if case .schedule(let t) = $0 { t } else { nil } }
    }
    func contains(_ action: LifecycleAction) -> Bool { contains { $0 == action } }
}

func seconds(_ s: Double) -> MonotonicTime { .seconds(s) }

enum Sample {
    static let heartRate = BluetoothUUID(0x180D)
    static let measurement = BluetoothUUID(0x2A37)
    static let battery = BluetoothUUID(0x180F)
    static let level = BluetoothUUID(0x2A19)

    /// Heart Rate at 0x0010–0x0015 (measurement value 0x0012, CCCD 0x0013); Battery after.
    static func services(shift: UInt16 = 0, withBattery: Bool = true) -> [Service] {
        let h = { (v: UInt16) in AttributeHandle(v + shift) }
        var services = [
            Service(uuid: heartRate, startHandle: h(0x10), endHandle: h(0x15), characteristics: [
                Characteristic(uuid: measurement, properties: [.notify], declarationHandle: h(0x11),
                               valueHandle: h(0x12), endHandle: h(0x13), serviceHandle: h(0x10),
                               descriptors: [Descriptor(uuid: BluetoothUUID(0x2902), handle: h(0x13),
                                                        characteristicHandle: h(0x12))]),
            ]),
        ]
        if withBattery {
            services.append(Service(uuid: battery, startHandle: h(0x20), endHandle: h(0x23), characteristics: [
                Characteristic(uuid: level, properties: [.read, .notify], declarationHandle: h(0x21),
                               valueHandle: h(0x22), endHandle: h(0x23), serviceHandle: h(0x20),
                               descriptors: [Descriptor(uuid: BluetoothUUID(0x2902), handle: h(0x23),
                                                        characteristicHandle: h(0x22))]),
            ]))
        }
        return services
    }

    static let hash: [UInt8] = Array(0..<16)
    static let otherHash: [UInt8] = Array(16..<32)

    static let heartRateSubscription = Subscription(
        serviceUUID: heartRate, characteristicUUID: measurement, valueHandle: 0x12,
        configurationHandle: 0x13, kind: .notify)
    static let batterySubscription = Subscription(
        serviceUUID: battery, characteristicUUID: level, valueHandle: 0x22,
        configurationHandle: 0x23, kind: .indicate)
}
