/// One report of HCI_LE_Extended_Advertising_Report (subevent 0x0D, Vol 4 Part E §7.7.65.13).
public struct LEExtendedAdvertisingReport: Hashable, Sendable {
    /// Bit 0 connectable, 1 scannable, 2 directed, 3 scan response, 4 legacy PDU,
    /// bits 5–6 data status (0 complete, 1 more to come, 2 truncated).
    public var eventType: UInt16
    /// 0x00–0x03 as ``BluetoothAddressType``; 0xFF means anonymous.
    public var addressType: UInt8
    public var address: BluetoothAddress
    public var primaryPHY: UInt8
    public var secondaryPHY: UInt8
    public var advertisingSID: UInt8
    /// dBm; 127 means not available.
    public var txPower: Int8
    public var rssi: Int8
    public var periodicAdvertisingInterval: UInt16
    public var directAddressType: UInt8
    public var directAddress: BluetoothAddress
    public var data: ArraySlice<UInt8>

    /// The data status carried in bits 5–6 of the event type.
    public var dataStatus: UInt8 { UInt8(truncatingIfNeeded: (eventType >> 5) & 0x3) }

    public static func decodeAll(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> [LEExtendedAdvertisingReport] {
        var r = PacketReader(bytes, structure: "LE Extended Advertising Report")
        let count = Int(try r.uint8("num reports"))
        var reports: [LEExtendedAdvertisingReport] = []
        reports.reserveCapacity(count)
        for _ in 0..<count {
            let eventType = try r.uint16("event type")
            let addressType = try r.uint8("address type")
            let address = try r.address("address")
            let primaryPHY = try r.uint8("primary PHY")
            let secondaryPHY = try r.uint8("secondary PHY")
            let sid = try r.uint8("advertising SID")
            let txPower = try r.int8("TX power")
            let rssi = try r.int8("RSSI")
            let interval = try r.uint16("periodic advertising interval")
            let directType = try r.uint8("direct address type")
            let direct = try r.address("direct address")
            let length = Int(try r.uint8("data length"))
            let data = try r.slice(length, "data")
            reports.append(LEExtendedAdvertisingReport(
                eventType: eventType, addressType: addressType, address: address, primaryPHY: primaryPHY,
                secondaryPHY: secondaryPHY, advertisingSID: sid, txPower: txPower, rssi: rssi,
                periodicAdvertisingInterval: interval, directAddressType: directType, directAddress: direct,
                data: data))
        }
        return reports
    }
}
