/// HCI LE Set Scan Parameters (Core Vol 4 Part E 7.8.10). Interval and window
/// are in units of 0.625 ms.
public struct LEScanParameters: Hashable, Sendable {
    public var active: Bool
    public var interval: UInt16
    public var window: UInt16
    public var ownAddressType: LEAddressType
    /// 0: accept all advertisements.
    public var filterPolicy: UInt8

    public init(active: Bool = true, interval: UInt16 = 0x0010, window: UInt16 = 0x0010,
                ownAddressType: LEAddressType = .public, filterPolicy: UInt8 = 0) {
        self.active = active
        self.interval = interval
        self.window = window
        self.ownAddressType = ownAddressType
        self.filterPolicy = filterPolicy
    }

    var commandParameters: [UInt8] {
        [active ? 1 : 0, UInt8(interval & 0xFF), UInt8(interval >> 8), UInt8(window & 0xFF), UInt8(window >> 8),
         ownAddressType.hciValue, filterPolicy]
    }
}
