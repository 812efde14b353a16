import Testing
import SensorDecoding

/// Every example of the bthome.io/format tables, decoded as plaintext service data
/// (device information 0x40, then the example). Results are the table's, as JSON numbers.
@Suite struct BTHomeObjectTableTests {
    struct Example: CustomTestStringConvertible, Sendable {
        let object: String
        let key: String
        let value: String
        let unit: String?
        init(_ object: String, _ key: String, _ value: String, _ unit: String? = nil) {
            self.object = object
            self.key = key
            self.value = value
            self.unit = unit
        }
        var testDescription: String { "\(object) → \(key) \(value)" }
    }

    static let sensors: [Example] = [
        .init("518756", "acceleration", "22.151", "m/s²"),
        .init("630057D0FF", "acceleration", "-3.123456", "m/s²"),
        .init("0161", "battery", "97", "%"),
        .init("6001", "channel", "1"),
        .init("12E204", "co2", "1250", "ppm"),
        .init("56E803", "conductivity", "1000", "µS/cm"),
        .init("0960", "count", "96"),
        .init("3D0960", "count", "24585"),
        .init("3E2A2C0960", "count", "1611213866"),
        .init("59EA", "count", "-22"),
        .init("5AEAEA", "count", "-5398"),
        .init("5BEA0234EA", "count", "-365690134"),
        .init("434E34", "current", "13.39", "A"),
        .init("5D02EA", "current", "-5.63", "A"),
        .init("08CA06", "dew_point", "17.38", "°C"),
        .init("5E9F8C", "direction", "359.99", "°"),
        .init("400C00", "distance", "12", "mm"),
        .init("414E00", "distance", "7.8", "m"),
        .init("424E3400", "duration", "13.39", "s"),
        .init("4d12138a14", "energy", "344593.17", "kWh"),
        .init("0A138A14", "energy", "1346.067", "kWh"),
        .init("4B138A14", "gas", "1346.067", "m³"),
        .init("4C41018A01", "gas", "25821.505", "m³"),
        .init("528756", "gyroscope", "22.151", "°/s"),
        .init("03BF13", "humidity", "50.55", "%"),
        .init("2E23", "humidity", "35", "%"),
        .init("05138A14", "illuminance", "13460.67", "lx"),
        .init("6402", "light_level", "2"),
        .init("065E1F", "mass", "80.3", "kg"),
        .init("073E1D", "mass", "74.86", "lb"),
        .init("14020C", "moisture", "30.74", "%"),
        .init("2F23", "moisture", "35", "%"),
        .init("0D120C", "pm2_5", "3090", "µg/m³"),
        .init("0E021C", "pm10", "7170", "µg/m³"),
        .init("0B021B00", "power", "69.14", "W"),
        .init("5C02FBFFFF", "power", "-12.78", "W"),
        .init("5FA00F", "precipitation", "400", "mm"),
        .init("04138A01", "pressure", "1008.83", "hPa"),
        .init("540C48656C6C6F20576F726C6421", "raw", "\"48656c6c6f20576f726c6421\""),
        .init("3F020C", "rotation", "307.4", "°"),
        .init("61AC0D", "rotational_speed", "3500", "rpm"),
        .init("6503", "settings_revision", "3"),
        .init("444E34", "speed", "133.9", "m/s"),
        .init("624099DFFF", "speed", "-2.123456", "m/s"),
        .init("57EA", "temperature", "-22", "°C"),
        .init("58EA", "temperature", "-7.7", "°C"),
        .init("451101", "temperature", "27.3", "°C"),
        .init("02CA09", "temperature", "25.06", "°C"),
        .init("530C48656C6C6F20576F726C6421", "text", "\"Hello World!\""),
        .init("505d396164", "timestamp", "1684093277"),
        .init("133301", "tvoc", "307", "µg/m³"),
        .init("0C020C", "voltage", "3.074", "V"),
        .init("4A020C", "voltage", "307.4", "V"),
        .init("4E87562A01", "volume", "19551.879", "L"),
        .init("478756", "volume", "2215.1", "L"),
        .init("48DC87", "volume", "34780", "mL"),
        .init("5587562A01", "volume_storage", "19551.879", "L"),
        .init("49DC87", "volume_flow_rate", "34.78", "m³/h"),
        .init("4632", "uv_index", "5"),
        .init("4F87562A01", "water", "19551.879", "L"),
        .init("F00100", "device_type_id", "1"),
        .init("F100010204", "firmware_version", "\"4.2.1.0\""),
        .init("F2000106", "firmware_version", "\"6.1.0\""),
    ]

    static let binarySensors: [Example] = [
        .init("1501", "battery_low", "true"), .init("1601", "battery_charging", "true"),
        .init("1700", "carbon_monoxide", "false"), .init("1801", "cold", "true"),
        .init("1900", "connectivity", "false"), .init("1A00", "door", "false"),
        .init("1B01", "garage_door", "true"), .init("1C01", "gas_detected", "true"),
        .init("0F01", "generic_boolean", "true"), .init("1D00", "heat", "false"),
        .init("1E01", "light", "true"), .init("1F01", "lock", "true"),
        .init("2001", "moisture_wet", "true"), .init("2100", "motion", "false"),
        .init("2201", "moving", "true"), .init("2301", "occupancy", "true"),
        .init("1100", "opening", "false"), .init("2400", "plug", "false"),
        .init("1001", "power_on", "true"), .init("2500", "presence", "false"),
        .init("2601", "problem", "true"), .init("2701", "running", "true"),
        .init("2800", "safety", "false"), .init("2901", "smoke", "true"),
        .init("2A00", "sound", "false"), .init("2B00", "tamper", "false"),
        .init("2C01", "vibration", "true"), .init("2D01", "window", "true"),
    ]

    static func decode(_ object: String) throws -> BTHomePacket {
        var decoder = try BTHomeDecoder()
        guard case let .accepted(packet) = try decoder.decode(serviceData: [0x40] + bytes(object), address: address("54:48:E6:8F:80:A5"))
        else { throw SensorDecodingError(.missingBindKey, offset: -1) }
        return packet
    }

    @Test(arguments: sensors + binarySensors)
    func specExample(_ example: Example) throws {
        let packet = try Self.decode(example.object)
        #expect(packet.stoppedAt == nil)
        #expect(packet.objects.count == 1)
        #expect(packet.objects.first?.offset == 1)
        let reading = try #require(packet.readings.first)
        #expect(reading.key == example.key)
        #expect(reading.value.value.json == example.value)
        #expect(reading.value.unit == example.unit)
        #expect(reading.value.hex == String(example.object.lowercased().dropFirst(2 + (example.key == "text" || example.key == "raw" ? 2 : 0))))
        #expect(!reading.isEvent)
    }

    @Test func everySensorIdUpTo0x5FIsKnown() {
        // The spec's ids 0x00–0x2F and 0x3A–0x65, less 0x3B (command, whose length the spec
        // leaves ambiguous).
        let ids = Array(UInt8(0x00)...0x2F) + [0x3A] + Array(UInt8(0x3C)...0x65)
        for id in ids { #expect(BTHomeObjectType.type(of: id) != nil, "0x\(String(id, radix: 16))") }
        #expect(BTHomeObjectType.type(of: 0x3B) == nil)
        #expect(BTHomeObjectType.type(of: 0x30) == nil)
    }

    @Test func buttonEvents() throws {
        let names: [(String, String)] = [("3A00", "null"), ("3A01", "\"press\""), ("3A02", "\"double_press\""),
                                         ("3A03", "\"triple_press\""), ("3A04", "\"long_press\""),
                                         ("3A05", "\"long_double_press\""), ("3A06", "\"long_triple_press\""),
                                         ("3A80", "\"hold_press\"")]
        for (object, value) in names {
            let reading = try #require(try Self.decode(object).readings.first)
            #expect(reading.key == "button")
            #expect(reading.isEvent)
            #expect(reading.value.value.json == value)
        }
    }

    @Test func dimmerEventsCarryTheirSteps() throws {
        let left = try #require(try Self.decode("3C0103").readings.first)
        #expect(left.isEvent)
        #expect(left.value.value == .string("rotate_left"))
        #expect(left.value[field: "steps"] == .integer(3))
        let right = try #require(try Self.decode("3C020A").readings.first)
        #expect(right.value.value == .string("rotate_right"))
        #expect(right.value[field: "steps"] == .integer(10))
        let none = try #require(try Self.decode("3C0000").readings.first)
        #expect(none.value.value == .null)
    }

    @Test func threeButtonDeviceKeysEachButton() throws {
        // bthome-ble test_bthome_event_triple_button_device: 3A00 3A01 3A03.
        let readings = try Self.decode("3A003A013A03").readings
        #expect(readings.map(\.key) == ["button_1", "button_2", "button_3"])
        #expect(readings.map(\.value.value) == [.null, .string("press"), .string("triple_press")])
    }

    @Test func packetIdIsBookkeepingNotAReading() throws {
        // bthome-ble test_bthome_packet_id_temperature_humidity_battery.
        let packet = try Self.decode("0009015d025d0903b718")
        #expect(packet.packetID == 9)
        #expect(packet.readings.map(\.key) == ["battery", "temperature", "humidity"])
        #expect(packet.readings.map(\.value.value.json) == ["93", "23.97", "63.27"])
    }
}
