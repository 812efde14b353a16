/// One report of HCI_LE_Advertising_Report (subevent 0x02, Vol 4 Part E §7.7.65.2).
public struct LEAdvertisingReport: Hashable, Sendable {
    /// 0x00 ADV_IND, 0x01 ADV_DIRECT_IND, 0x02 ADV_SCAN_IND, 0x03 ADV_NONCONN_IND, 0x04 SCAN_RSP.
    public var eventType: UInt8
    public var addressType: BluetoothAddressType
    public var address: BluetoothAddress
    /// The advertising data (AD structures); decode with ``AdvertisingData``.
    public var data: ArraySlice<UInt8>
    /// dBm; 127 means not available.
    public var rssi: Int8

    /// Decodes every report in the event. Reports are read one after another, each with
    /// all its fields, which is how controllers lay them out.
    public static func decodeAll(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> [LEAdvertisingReport] {
        var r = PacketReader(bytes, structure: "LE Advertising Report")
        let count = Int(try r.uint8("num reports"))
        var reports: [LEAdvertisingReport] = []
        reports.reserveCapacity(count)
        for _ in 0..<count {
            let eventType = try r.uint8("event type")
            let typeOffset = r.offset
            let rawType = try r.uint8("address type")
            guard let type = BluetoothAddressType(rawValue: rawType) else {
                throw r.error(.invalidValue(field: "address type", value: Int(rawType)), at: typeOffset)
            }
            let address = try r.address("address")
            let length = Int(try r.uint8("data length"))
            let data = try r.slice(length, "data")
            let rssi = try r.int8("RSSI")
            reports.append(LEAdvertisingReport(eventType: eventType, addressType: type, address: address,
                                               data: data, rssi: rssi))
        }
        return reports
    }
}
