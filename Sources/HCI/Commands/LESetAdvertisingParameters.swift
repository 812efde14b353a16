/// HCI_LE_Set_Advertising_Parameters (Vol 4 Part E §7.8.5), the legacy advertiser.
public struct LESetAdvertisingParameters: HCICommand, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x0006)
    /// In units of 0.625 ms, 0x0020–0x4000.
    public var intervalMin: UInt16
    public var intervalMax: UInt16
    /// 0x00 ADV_IND (connectable, scannable), 0x02 ADV_SCAN_IND, 0x03 ADV_NONCONN_IND.
    public var advertisingType: UInt8
    public var ownAddressType: OwnAddressType
    public var peerAddressType: UInt8
    public var peerAddress: BluetoothAddress
    /// Bits for channels 37, 38 and 39.
    public var channelMap: UInt8
    public var filterPolicy: UInt8

    public init(intervalMin: UInt16 = 0x0020, intervalMax: UInt16 = 0x0020, advertisingType: UInt8 = 0x00,
                ownAddressType: OwnAddressType, peerAddressType: UInt8 = 0,
                peerAddress: BluetoothAddress = BluetoothAddress(rawValue: 0),
                channelMap: UInt8 = 0x07, filterPolicy: UInt8 = 0x00) {
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.advertisingType = advertisingType
        self.ownAddressType = ownAddressType
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.channelMap = channelMap
        self.filterPolicy = filterPolicy
    }

    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.appendLittleEndian(intervalMin)
        buffer.appendLittleEndian(intervalMax)
        buffer.append(advertisingType)
        buffer.append(ownAddressType.rawValue)
        buffer.append(peerAddressType)
        buffer.append(peerAddress)
        buffer.append(channelMap)
        buffer.append(filterPolicy)
    }
}
