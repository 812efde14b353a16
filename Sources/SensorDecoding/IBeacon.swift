import BluetoothCore

/// An iBeacon advertisement: Apple manufacturer data (company 0x004C) of type 0x02, length
/// 0x15, then the proximity UUID, major, minor (big endian) and the measured power at 1 m.
public struct IBeacon: Hashable, Sendable {
    /// Apple's company identifier.
    public static let companyID: UInt16 = 0x004C

    /// The beacon group's UUID.
    public let proximityUUID: BluetoothUUID
    /// The subgroup.
    public let major: UInt16
    /// The beacon within the subgroup.
    public let minor: UInt16
    /// RSSI at 1 m, in dBm.
    public let measuredPower: Int8

    /// Decodes manufacturer data: `companyID` and the bytes after it.
    public init(companyID: UInt16, data: ArraySlice<UInt8>) throws(SensorDecodingError) {
        guard companyID == Self.companyID else {
            throw SensorDecodingError(.notThisFormat("iBeacon (company 0x\(hexString(companyID, digits: 4)) is not Apple)"), offset: 0)
        }
        var reader = PayloadReader(data)
        let type = try reader.u8("type")
        let length = try reader.u8("length")
        // Apple sends other manufacturer data types (Nearby, AirPods); only 02 15 is a beacon.
        guard type == 0x02, length == 0x15 else {
            throw SensorDecodingError(.notThisFormat("iBeacon (type \(type), length \(length))"), offset: 0)
        }
        // Sent most significant byte first, unlike Bluetooth's own UUIDs.
        let high = try reader.uintBE(8, "proximity UUID")
        proximityUUID = BluetoothUUID(high: high, low: try reader.uintBE(8, "proximity UUID"))
        major = UInt16(try reader.uintBE(2, "major"))
        minor = UInt16(try reader.uintBE(2, "minor"))
        measuredPower = Int8(bitPattern: try reader.u8("measured power"))
        try reader.expectEnd()
    }

    /// Convenience for whole arrays.
    public init(companyID: UInt16, data: [UInt8]) throws(SensorDecodingError) {
        try self.init(companyID: companyID, data: data[...])
    }

    /// `uuid`, `major`, `minor` and `measured_power` (dBm).
    public var readings: [DecodedReading] {
        [
            DecodedReading(key: "uuid", value: DecodedValue(value: .string(proximityUUID.fullString))),
            DecodedReading(key: "major", value: DecodedValue(value: .integer(major))),
            DecodedReading(key: "minor", value: DecodedValue(value: .integer(minor))),
            DecodedReading(key: "measured_power", value: DecodedValue(value: .integer(measuredPower), unit: "dBm")),
        ]
    }
}
