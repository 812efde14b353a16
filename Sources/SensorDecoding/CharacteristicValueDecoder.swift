import BluetoothCore

/// Decodes characteristic values in one ``ValueFormat``, with the config's optional `scale`
/// and `unit`.
///
/// `scale` replaces the format's own factor (1 for the integer formats, 0.01 for
/// temperature and humidity, 0.1 for pressure), so a device that sends its temperature in
/// tenths can be read with `scale: 0.1`; it applies to the primary number only, and is
/// ignored for `utf8` and `hex`. `unit` replaces the format's unit.
///
/// Fixed-length formats take exactly their length: shorter or longer values are errors, as
/// are values the characteristic's specification reserves (battery above 100 %).
public struct CharacteristicValueDecoder: Hashable, Sendable {
    /// How the bytes are laid out.
    public var format: ValueFormat
    /// Replaces the format's factor, when set.
    public var scale: DecodedNumber?
    /// Replaces the format's unit, when set.
    public var unit: String?

    /// A decoder for `format`, with the config's optional `scale` and `unit`.
    public init(format: ValueFormat, scale: DecodedNumber? = nil, unit: String? = nil) {
        self.format = format
        self.scale = scale
        self.unit = unit
    }

    /// With `scale` as the config writes it (a YAML float); NaN and infinities are ignored.
    public init(format: ValueFormat, scale: Double?, unit: String? = nil) {
        self.init(format: format, scale: scale.flatMap { DecodedNumber(double: $0) }, unit: unit)
    }

    var factor: DecodedNumber { scale ?? format.defaultScale }
    var resolvedUnit: String? { unit ?? format.defaultUnit }

    /// The value of `bytes`, or an error naming the offset at fault.
    public func decode(_ bytes: ArraySlice<UInt8>) throws(SensorDecodingError) -> DecodedValue {
        var reader = PayloadReader(bytes)
        let raw = hexString(bytes, empty: "")
        switch format {
        case .u8, .u16le, .u32le:
            let width = format == .u8 ? 1 : format == .u16le ? 2 : 4
            let value = try reader.uintLE(width, format.rawValue)
            try reader.expectEnd()
            return scaled(Int64(value), raw)
        case .s16le, .s32le:
            let width = format == .s16le ? 2 : 4
            let value = signExtend(try reader.uintLE(width, format.rawValue), bytes: width)
            try reader.expectEnd()
            return scaled(value, raw)
        case .float32le:
            let bits = UInt32(truncatingIfNeeded: try reader.uintLE(4, "float32le"))
            try reader.expectEnd()
            guard let number = DecodedNumber(float: Float(bitPattern: bits)) else {
                return DecodedValue(value: .null, unit: resolvedUnit, hex: raw)
            }
            return DecodedValue(value: .number(scale.map { number.multiplied(by: $0) } ?? number), unit: resolvedUnit, hex: raw)
        case .utf8:
            // Fixed-size string characteristics are often padded with NULs; they are not text.
            var text = bytes
            while text.last == 0 { text = text.dropLast() }
            return DecodedValue(value: .string(try decodeUTF8(text, field: "utf8", base: 0)), unit: unit, hex: raw)
        case .hex:
            return DecodedValue(value: .string(raw), unit: unit, hex: raw)
        case .batteryLevel:
            let level = try reader.u8("battery level")
            try reader.expectEnd()
            guard level <= 100 else { throw reader.failure(.invalidValue(field: "battery level", value: UInt64(level)), at: 0) }
            return scaled(Int64(level), raw)
        case .temperature:
            let value = try reader.uintLE(2, "temperature")
            try reader.expectEnd()
            if value == 0x8000 { return DecodedValue(value: .null, unit: resolvedUnit, hex: raw) }
            return scaled(signExtend(value, bytes: 2), raw)
        case .humidity:
            let value = try reader.uintLE(2, "humidity")
            try reader.expectEnd()
            if value == 0xFFFF { return DecodedValue(value: .null, unit: resolvedUnit, hex: raw) }
            return scaled(Int64(value), raw)
        case .pressure:
            let value = try reader.uintLE(4, "pressure")
            try reader.expectEnd()
            return scaled(Int64(value), raw)
        case .heartRateMeasurement:
            return try heartRate(&reader, raw)
        }
    }

    /// Convenience for whole arrays.
    public func decode(_ bytes: [UInt8]) throws(SensorDecodingError) -> DecodedValue {
        try decode(bytes[...])
    }

    private func scaled(_ integer: Int64, _ raw: String) -> DecodedValue {
        DecodedValue(value: .number(DecodedNumber(integer).multiplied(by: factor)), unit: resolvedUnit, hex: raw)
    }

    /// Heart Rate Measurement (Heart Rate Service 1.0 §3.1.1): flags; heart rate as uint8 or
    /// uint16 (flag bit 0); sensor contact (bit 2: supported, bit 1: detected); energy
    /// expended (bit 3), published in kJ as `energy_expended`; RR intervals (bit 4, 1/1024 s
    /// each), published in seconds as `rr_intervals`.
    private func heartRate(_ reader: inout PayloadReader, _ raw: String) throws(SensorDecodingError) -> DecodedValue {
        let flags = try reader.u8("flags")
        let bpm = try reader.uintLE(flags & 0x01 != 0 ? 2 : 1, "heart rate")
        var fields: [DecodedValue.Field] = []
        if flags & 0x04 != 0 { fields.append(.init("sensor_contact", .bool(flags & 0x02 != 0))) }
        if flags & 0x08 != 0 {
            fields.append(.init("energy_expended", .integer(try reader.uintLE(2, "energy expended"))))
        }
        if flags & 0x10 != 0 {
            // 1/1024 s is exactly 0.0009765625 s, so each interval is an exact decimal.
            let tick = DecodedNumber(significand: 9_765_625, exponent: -10)
            var intervals: [FieldValue] = []
            guard reader.remaining >= 2 else {
                throw reader.failure(.truncated(field: "RR interval", needed: 2, available: reader.remaining))
            }
            while !reader.isAtEnd {
                let value = try reader.uintLE(2, "RR interval")
                intervals.append(.number(DecodedNumber(Int64(value)).multiplied(by: tick)))
            }
            fields.append(.init("rr_intervals", .list(intervals)))
        }
        try reader.expectEnd()
        var value = DecodedNumber(Int64(bpm))
        if let scale { value = value.multiplied(by: scale) }
        return DecodedValue(value: .number(value), unit: resolvedUnit, hex: raw, fields: fields)
    }
}
