/// HCI LE Set Advertising Parameters (Core Vol 4 Part E 7.8.5). Intervals are
/// in units of 0.625 ms.
public struct LEAdvertisingParameters: Hashable, Sendable {
    /// ADV_IND 0 (connectable, scannable), ADV_SCAN_IND 2, ADV_NONCONN_IND 3.
    public var type: UInt8
    public var minimumInterval: UInt16
    public var maximumInterval: UInt16
    public var ownAddressType: LEAddressType
    /// Channels 37, 38, 39: 0x07 for all three.
    public var channelMap: UInt8
    public var filterPolicy: UInt8

    public static let connectableUndirected: UInt8 = 0x00

    public init(type: UInt8 = connectableUndirected, minimumInterval: UInt16 = 0x0020, maximumInterval: UInt16 = 0x0020,
                ownAddressType: LEAddressType = .public, channelMap: UInt8 = 0x07, filterPolicy: UInt8 = 0) {
        self.type = type
        self.minimumInterval = minimumInterval
        self.maximumInterval = maximumInterval
        self.ownAddressType = ownAddressType
        self.channelMap = channelMap
        self.filterPolicy = filterPolicy
    }

    var commandParameters: [UInt8] {
        [UInt8(minimumInterval & 0xFF), UInt8(minimumInterval >> 8), UInt8(maximumInterval & 0xFF), UInt8(maximumInterval >> 8),
         type, ownAddressType.hciValue, 0, 0, 0, 0, 0, 0, 0, channelMap, filterPolicy]
    }
}
