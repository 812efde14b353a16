/// The unencrypted Eddystone-TLM frame, version 0.
public struct EddystoneTelemetry: Hashable, Sendable {
    /// Battery voltage in mV; 0 when the beacon does not measure it.
    public let batteryMillivolts: UInt16
    /// Beacon temperature in °C (signed 8.8 fixed point); nil when the beacon sends 0x8000
    /// ("not supported").
    public let temperature: DecodedNumber?
    /// Advertising PDUs sent since power-up.
    public let advertisingCount: UInt32
    /// Time since power-up, in seconds (sent in 0.1 s units).
    public let uptime: DecodedNumber

    init(_ reader: inout PayloadReader) throws(SensorDecodingError) {
        let versionOffset = reader.position
        let version = try reader.u8("TLM version")
        // Version 1 is the encrypted TLM (eTLM), which needs the beacon's EID key.
        guard version == 0 else { throw SensorDecodingError(.unsupportedFrame(version), offset: versionOffset) }
        batteryMillivolts = UInt16(try reader.uintBE(2, "battery voltage"))
        let rawTemperature = try reader.uintBE(2, "temperature")
        // 8.8 fixed point: 1/256 °C is exactly 0.00390625 °C.
        temperature = rawTemperature == 0x8000 ? nil
            : DecodedNumber(signExtend(rawTemperature, bytes: 2)).multiplied(by: DecodedNumber(significand: 390_625, exponent: -8))
        advertisingCount = UInt32(try reader.uintBE(4, "advertising count"))
        uptime = DecodedNumber(Int64(try reader.uintBE(4, "seconds count"))).multiplied(by: DecodedNumber(significand: 1, exponent: -1))
        try reader.expectEnd()
    }

    /// `battery` (mV), `temperature` (°C, null when unsupported), `advertising_count` and `uptime` (s).
    public var readings: [DecodedReading] {
        [DecodedReading(key: "battery", value: DecodedValue(value: .integer(batteryMillivolts), unit: "mV")),
         DecodedReading(key: "temperature", value: DecodedValue(value: temperature.map(FieldValue.number) ?? .null, unit: "°C")),
         DecodedReading(key: "advertising_count", value: DecodedValue(value: .integer(advertisingCount))),
         DecodedReading(key: "uptime", value: DecodedValue(value: .number(uptime), unit: "s"))]
    }
}
