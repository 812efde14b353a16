/// One advertising report, legacy or extended, in one shape.
public struct AdvertisingReport: Hashable, Sendable {
    public var address: BluetoothAddress
    /// The advertiser's address type as reported: 0x00 public, 0x01 random, 0x02/0x03
    /// identity, 0xFF anonymous. Pass it back unchanged when connecting.
    public var addressType: UInt8
    /// Legacy event types map to their extended equivalents (Vol 4 Part E §7.7.65.13).
    public var eventType: UInt16
    public var rssi: Int8
    /// The advertising data or scan response data.
    public var data: [UInt8]
    /// Reports the host dropped immediately before this one because its consumer fell
    /// too far behind (see `UserlandHost.events`); 0 when none were.
    public var lostBefore: Int = 0

    public init(address: BluetoothAddress, addressType: UInt8, eventType: UInt16, rssi: Int8, data: [UInt8]) {
        self.address = address
        self.addressType = addressType
        self.eventType = eventType
        self.rssi = rssi
        self.data = data
    }

    public var isConnectable: Bool { eventType & 0x0001 != 0 }
    public var isScanResponse: Bool { eventType & 0x0008 != 0 }
    /// Data_Status: 0 complete, 1 more data to come, 2 truncated.
    public var dataStatus: UInt8 { UInt8(truncatingIfNeeded: (eventType >> 5) & 0x3) }
}
