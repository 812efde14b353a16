import Testing
import BluetoothCore
import SensorDecoding

/// iBeacon, Eddystone and raw advertisement data on published frames: Google's Eddystone
/// spec repository (the RFduino URL sample and the validator's UID and TLM test frames) and
/// a beacon vendor's documented iBeacon default.
@Suite struct BeaconTests {
    @Test func iBeaconFromAppleManufacturerData() throws {
        // April Brother's documented iBeacon frame (UUID B5B182C7-…), major 1, minor 2, 0xC6.
        let data = bytes("0215 b5b182c7eab14988aa99b5c1517008d9 0001 0002 c6")
        let beacon = try IBeacon(companyID: 0x004C, data: data)
        #expect(beacon.proximityUUID.fullString == "B5B182C7-EAB1-4988-AA99-B5C1517008D9")
        #expect(beacon.major == 1)
        #expect(beacon.minor == 2)
        #expect(beacon.measuredPower == -58)
        #expect(beacon.readings.map(\.key) == ["uuid", "major", "minor", "measured_power"])
        #expect(beacon.readings.last?.value.json() == "{\"value\": -58, \"unit\": \"dBm\"}")
    }

    @Test func iBeaconRefusesOtherAppleDataAndShortFrames() {
        #expect(throws: SensorDecodingError(.notThisFormat("iBeacon (company 0x0059 is not Apple)"), offset: 0)) {
            try IBeacon(companyID: 0x0059, data: bytes("0215"))
        }
        // Apple "Nearby Info" (type 0x10) is not a beacon.
        #expect(throws: SensorDecodingError(.notThisFormat("iBeacon (type 16, length 5)"), offset: 0)) {
            try IBeacon(companyID: 0x004C, data: bytes("1005 0b1c 0a2f 11"))
        }
        #expect(throws: SensorDecodingError(.truncated(field: "measured power", needed: 1, available: 0), offset: 22)) {
            try IBeacon(companyID: 0x004C, data: bytes("0215 b5b182c7eab14988aa99b5c1517008d9 0001 0002"))
        }
        #expect(throws: SensorDecodingError(.trailingBytes(count: 1), offset: 23)) {
            try IBeacon(companyID: 0x004C, data: bytes("0215 b5b182c7eab14988aa99b5c1517008d9 0001 0002 c6 00"))
        }
    }

    @Test func eddystoneUID() throws {
        // The Eddystone validator's UID test frame: namespace 00…09, instance AA…FF, -20 dBm.
        let frame = try EddystoneFrame(serviceData: bytes("00 ec 00010203040506070809 aabbccddeeff 0000"))
        #expect(frame == .uid(namespace: Array(0...9), instance: bytes("aabbccddeeff"), txPower: -20))
        #expect(frame.readings.map(\.value.value.json) == ["\"00010203040506070809\"", "\"aabbccddeeff\"", "-20"])
        // Early beacons leave out the two RFU bytes (service data length 0x15).
        #expect(try EddystoneFrame(serviceData: bytes("00 ec 00010203040506070809 aabbccddeeff")) == frame)
        #expect(throws: SensorDecodingError(.truncated(field: "RFU", needed: 2, available: 1), offset: 18)) {
            try EddystoneFrame(serviceData: bytes("00 ec 00010203040506070809 aabbccddeeff 00"))
        }
    }

    @Test func eddystoneURLSchemesAndExpansions() throws {
        // Google's RFduino sample: "http://" "abc" ".com", Tx power 0xEB.
        #expect(try EddystoneFrame(serviceData: bytes("10 eb 02 616263 07")) == .url("http://abc.com", txPower: -21))
        // The spec's example https://goo.gl/S6zT6P.
        #expect(try EddystoneFrame(serviceData: [0x10, 0x12, 0x03] + Array("goo.gl/S6zT6P".utf8))
                == .url("https://goo.gl/S6zT6P", txPower: 18))
        // Every scheme, and every expansion code.
        #expect(try EddystoneFrame(serviceData: [0x10, 0, 0x00] + Array("a".utf8) + [0x00, 0x62])
                == .url("http://www.a.com/b", txPower: 0))
        #expect(try EddystoneFrame(serviceData: [0x10, 0, 0x01] + Array("a".utf8) + [0x0D]) == .url("https://www.a.gov", txPower: 0))
        let expanded = try EddystoneFrame(serviceData: [0x10, 0, 0x02] + Array(UInt8(0x00)...0x0D))
        #expect(expanded == .url("http://.com/.org/.edu/.net/.info/.biz/.gov/.com.org.edu.net.info.biz.gov", txPower: 0))
    }

    @Test func eddystoneURLRefusesReservedCodes() {
        #expect(throws: SensorDecodingError(.invalidValue(field: "URL scheme", value: 4), offset: 2)) {
            try EddystoneFrame(serviceData: bytes("10 00 04 61"))
        }
        for code: UInt8 in [0x0E, 0x20, 0x7F, 0xFF] {
            #expect(throws: SensorDecodingError(.invalidValue(field: "URL", value: UInt64(code)), offset: 4)) {
                try EddystoneFrame(serviceData: [0x10, 0x00, 0x03, 0x61, code])
            }
        }
    }

    @Test func eddystoneTLM() throws {
        // The Eddystone validator's TLM test frame: 5000 mV, 21 °C, 1 PDU, 1 tick of 0.1 s.
        let frame = try EddystoneFrame(serviceData: bytes("20 00 1388 1500 00000001 00000001"))
        guard case let .telemetry(tlm) = frame else { Issue.record("\(frame)"); return }
        #expect(tlm.batteryMillivolts == 5000)
        #expect(tlm.temperature == DecodedNumber(21))
        #expect(tlm.advertisingCount == 1)
        #expect(tlm.uptime.description == "0.1")
        #expect(frame.readings.map(\.key) == ["battery", "temperature", "advertising_count", "uptime"])
        #expect(frame.readings.map { $0.value.json() } == [
            "{\"value\": 5000, \"unit\": \"mV\"}", "{\"value\": 21, \"unit\": \"°C\"}",
            "{\"value\": 1}", "{\"value\": 0.1, \"unit\": \"s\"}",
        ])
    }

    @Test func eddystoneTLMFixedPointTemperature() throws {
        func temperature(_ raw: String) throws -> String {
            guard case let .telemetry(tlm) = try EddystoneFrame(serviceData: bytes("20 00 0000 \(raw) 00000000 00000000")) else { return "?" }
            return tlm.readings[1].value.value.json
        }
        #expect(try temperature("1580") == "21.5")
        #expect(try temperature("ff80") == "-0.5")
        #expect(try temperature("0001") == "0.00390625")
        #expect(try temperature("8000") == "null")
    }

    @Test func eddystoneRefusesOtherFramesAndVersions() {
        #expect(throws: SensorDecodingError(.unsupportedFrame(0x40), offset: 0)) { try EddystoneFrame(serviceData: [0x40]) }
        #expect(throws: SensorDecodingError(.unsupportedFrame(0x01), offset: 1)) {
            try EddystoneFrame(serviceData: bytes("20 01 1388 1500 00000001 00000001"))
        }
        #expect(throws: SensorDecodingError(.truncated(field: "seconds count", needed: 4, available: 3), offset: 10)) {
            try EddystoneFrame(serviceData: bytes("20 00 1388 1500 00000001 000000"))
        }
        #expect(throws: SensorDecodingError(.truncated(field: "frame type", needed: 1, available: 0), offset: 0)) {
            try EddystoneFrame(serviceData: [])
        }
    }

    @Test func rawServiceAndManufacturerDataAsHex() {
        let raw = RawAdvertisementData(serviceData: [BluetoothUUID(0xFEAA): bytes("10eb02"), BluetoothUUID(0x180F): [0x64]],
                                       manufacturerData: [0x004C: bytes("0215"), 0x0059: []])
        #expect(raw.readings.map(\.key)
                == ["service_data_180f", "service_data_feaa", "manufacturer_data_004c", "manufacturer_data_0059"])
        #expect(raw.readings.map(\.value.value) == [.string("64"), .string("10eb02"), .string("0215"), .string("")])
    }

    @Test func advertisementDecoderDispatchesEachFormat() throws {
        let device = address("00:01:02:03:04:05")
        var ibeacon = try AdvertisementDecoder(format: .ibeacon)
        guard case let .readings(beacon, _) = try ibeacon.decode(
            address: device, serviceData: [:],
            manufacturerData: [0x004C: bytes("0215 b5b182c7eab14988aa99b5c1517008d9 0001 0002 c6")]) else {
            Issue.record("no readings"); return
        }
        #expect(beacon.first?.value.value == .string("B5B182C7-EAB1-4988-AA99-B5C1517008D9"))
        var eddystone = try AdvertisementDecoder(format: .eddystone)
        #expect(try eddystone.decode(address: device, serviceData: [BluetoothUUID(0xFEAA): bytes("10eb0261626307")],
                                     manufacturerData: [:])
                == .readings(EddystoneFrame.url("http://abc.com", txPower: -21).readings))
        #expect(try eddystone.decode(address: device, serviceData: [:], manufacturerData: [:]) == .absent)
        var raw = try AdvertisementDecoder(format: .raw)
        #expect(try raw.decode(address: device, serviceData: [:], manufacturerData: [0x0059: [1]])
                == .readings(RawAdvertisementData(manufacturerData: [0x0059: [1]]).readings))
        #expect(AdvertisementFormat.allCases.map(\.rawValue) == ["bthome", "ibeacon", "eddystone", "raw"])
    }
}
