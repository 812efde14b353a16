import Testing
import SensorDecoding

/// Characteristic value formats: the integer and text formats with scale and unit, and the
/// SIG characteristics by their specifications (Heart Rate Service 1.0, GATT Specification
/// Supplement for battery level, temperature, humidity and pressure).
@Suite struct CharacteristicValueTests {
    func decode(_ format: ValueFormat, _ hex: String, scale: Double? = nil, unit: String? = nil) throws -> DecodedValue {
        try CharacteristicValueDecoder(format: format, scale: scale, unit: unit).decode(bytes(hex))
    }

    @Test func formatNamesAreTheConfigNames() {
        #expect(ValueFormat.allCases.map(\.rawValue) == [
            "u8", "u16le", "s16le", "u32le", "s32le", "float32le", "utf8", "hex", "heart_rate_measurement",
            "battery_level", "temperature", "humidity", "pressure",
        ])
        #expect(ValueFormat.heartRateMeasurement.characteristic == 0x2A37)
        #expect(ValueFormat.pressure.characteristic == 0x2A6D)
    }

    @Test func heartRateRendersAsTheIssueShows() throws {
        let value = try decode(.heartRateMeasurement, "0048")
        #expect(value.json() == "{\"value\": 72, \"unit\": \"bpm\", \"hex\": \"0048\"}")
        #expect(value.json(ts: 1796042144.06, rssi: -61, via: "attune-kitchen")
                == "{\"value\": 72, \"unit\": \"bpm\", \"hex\": \"0048\", \"ts\": 1796042144.06, \"rssi\": -61, \"via\": \"attune-kitchen\"}")
    }

    @Test func heartRateWithEveryOptionalField() throws {
        // Flags 0x1F: uint16 rate, contact supported and detected, energy expended, RR intervals.
        let value = try decode(.heartRateMeasurement, "1f 8c00 2301 0004 2003")
        #expect(value.value == .integer(140))
        #expect(value[field: "sensor_contact"] == .bool(true))
        #expect(value[field: "energy_expended"] == .integer(291))
        #expect(value.json() == "{\"value\": 140, \"unit\": \"bpm\", \"hex\": \"1f8c00230100042003\", "
                + "\"sensor_contact\": true, \"energy_expended\": 291, \"rr_intervals\": [1, 0.78125]}")
        // Contact supported, not detected.
        #expect(try decode(.heartRateMeasurement, "0448")[field: "sensor_contact"] == .bool(false))
        // Contact not supported: no field at all.
        #expect(try decode(.heartRateMeasurement, "0248")[field: "sensor_contact"] == nil)
    }

    @Test func heartRateTruncationsAreTypedErrors() {
        #expect(throws: SensorDecodingError(.truncated(field: "flags", needed: 1, available: 0), offset: 0)) {
            try decode(.heartRateMeasurement, "")
        }
        #expect(throws: SensorDecodingError(.truncated(field: "heart rate", needed: 2, available: 1), offset: 1)) {
            try decode(.heartRateMeasurement, "0148")
        }
        #expect(throws: SensorDecodingError(.truncated(field: "energy expended", needed: 2, available: 1), offset: 2)) {
            try decode(.heartRateMeasurement, "084801")
        }
        #expect(throws: SensorDecodingError(.truncated(field: "RR interval", needed: 2, available: 0), offset: 2)) {
            try decode(.heartRateMeasurement, "1048")
        }
        #expect(throws: SensorDecodingError(.truncated(field: "RR interval", needed: 2, available: 1), offset: 4)) {
            try decode(.heartRateMeasurement, "1048000401")
        }
        #expect(throws: SensorDecodingError(.trailingBytes(count: 1), offset: 2)) {
            try decode(.heartRateMeasurement, "004800")
        }
    }

    @Test func batteryLevel() throws {
        #expect(try decode(.batteryLevel, "64").json() == "{\"value\": 100, \"unit\": \"%\", \"hex\": \"64\"}")
        #expect(throws: SensorDecodingError(.invalidValue(field: "battery level", value: 101), offset: 0)) {
            try decode(.batteryLevel, "65")
        }
        #expect(throws: SensorDecodingError(.trailingBytes(count: 1), offset: 1)) { try decode(.batteryLevel, "6400") }
    }

    @Test func temperatureHumidityPressure() throws {
        // 2150 × 0.01 °C is 21.5, not 21.499999999999996.
        #expect(try decode(.temperature, "6608").json() == "{\"value\": 21.5, \"unit\": \"°C\", \"hex\": \"6608\"}")
        #expect(try decode(.temperature, "ffff").value.json == "-0.01")
        #expect(try decode(.temperature, "0080").value == .null)
        #expect(try decode(.humidity, "8813").value.json == "50")
        #expect(try decode(.humidity, "ffff").value == .null)
        // 101325 Pa is sent as 1013250 tenths.
        #expect(try decode(.pressure, "02760f00").json() == "{\"value\": 101325, \"unit\": \"Pa\", \"hex\": \"02760f00\"}")
        #expect(throws: SensorDecodingError(.truncated(field: "pressure", needed: 4, available: 3), offset: 0)) {
            try decode(.pressure, "02760f")
        }
    }

    @Test func scaleReplacesTheFormatFactorAndUnitOverrides() throws {
        #expect(try decode(.temperature, "d700", scale: 0.1).value.json == "21.5")
        #expect(try decode(.temperature, "d700", unit: "C").unit == "C")
        #expect(try decode(.u16le, "3412", scale: 0.01, unit: "V").json() == "{\"value\": 46.6, \"unit\": \"V\", \"hex\": \"3412\"}")
        #expect(try decode(.u8, "03", scale: 0.1).value.json == "0.3")
        #expect(try decode(.heartRateMeasurement, "0048", scale: 2).value.json == "144")
    }

    @Test func integerFormats() throws {
        #expect(try decode(.u8, "ff").value.json == "255")
        #expect(try decode(.u16le, "ffff").value.json == "65535")
        #expect(try decode(.s16le, "feff").value.json == "-2")
        #expect(try decode(.u32le, "ffffffff").value.json == "4294967295")
        #expect(try decode(.s32le, "00000080").value.json == "-2147483648")
        #expect(try decode(.u8, "ff").unit == nil)
        #expect(throws: SensorDecodingError(.truncated(field: "s32le", needed: 4, available: 2), offset: 0)) {
            try decode(.s32le, "0000")
        }
        #expect(throws: SensorDecodingError(.trailingBytes(count: 1), offset: 2)) { try decode(.u16le, "000000") }
    }

    @Test func float32WithoutBinaryNoise() throws {
        #expect(try decode(.float32le, "0000ac41").value.json == "21.5")
        // 0.1f is 0.100000001490116…; it prints as the float it is, 0.1.
        #expect(try decode(.float32le, "cdcccc3d").value.json == "0.1")
        #expect(try decode(.float32le, "0000ac41", scale: 2).value.json == "43")
        #expect(try decode(.float32le, "0000c07f").value == .null)
        #expect(try decode(.float32le, "ffff7f7f").value.json == "3.4028235e38")
    }

    @Test func textAndHex() throws {
        #expect(try decode(.utf8, "41747475 6e65 0000").value == .string("Attune"))
        #expect(try decode(.utf8, "612262").value.json == "\"a\\\"b\"")
        #expect(try decode(.utf8, "0a").value.json == "\"\\n\"")
        #expect(try decode(.utf8, "01").value.json == "\"\\u0001\"")
        #expect(try decode(.utf8, "c3a9").value == .string("é"))
        #expect(throws: SensorDecodingError(.invalidUTF8(field: "utf8"), offset: 1)) { try decode(.utf8, "41c3") }
        #expect(try decode(.hex, "dead").json() == "{\"value\": \"dead\", \"hex\": \"dead\"}")
        #expect(try decode(.hex, "").value == .string(""))
    }
}
