/// The BTHome device information byte (bthome.io/format): the first byte of the service data.
public struct BTHomeDeviceInfo: Hashable, Sendable {
    /// The byte as sent.
    public let rawValue: UInt8
    /// The bits of `rawValue`.
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
