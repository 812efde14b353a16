/// HCI_LE_Set_Extended_Advertising_Enable (Vol 4 Part E §7.8.56).
public struct LESetExtendedAdvertisingEnable: HCICommand, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x0039)

    /// One advertising set to enable or disable.
    public struct Set: Hashable, Sendable {
        public var advertisingHandle: UInt8
        /// In units of 10 ms; 0 advertises until disabled.
        public var duration: UInt16
        /// 0 means no limit.
        public var maxExtendedAdvertisingEvents: UInt8
        public init(advertisingHandle: UInt8, duration: UInt16 = 0, maxExtendedAdvertisingEvents: UInt8 = 0) {
            self.advertisingHandle = advertisingHandle
            self.duration = duration
            self.maxExtendedAdvertisingEvents = maxExtendedAdvertisingEvents
        }
    }

    public var enable: Bool
    /// Empty with `enable == false` disables every set.
    public var sets: [Set]

    public init(enable: Bool, sets: [Set]) {
        self.enable = enable
        self.sets = sets
    }

    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(enable ? 1 : 0)
        buffer.append(UInt8(truncatingIfNeeded: sets.count))
        for set in sets {
            buffer.append(set.advertisingHandle)
            buffer.appendLittleEndian(set.duration)
            buffer.append(set.maxExtendedAdvertisingEvents)
        }
    }
}
