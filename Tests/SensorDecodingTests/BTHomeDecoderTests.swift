import Testing
import BluetoothCore
import SensorDecoding

/// BTHome v2 framing, encryption, replay and downgrade on the published samples: the
/// bthome.io/encryption worked example and the bthome-ble test suite's payloads.
@Suite struct BTHomeDecoderTests {
    /// The key and device of bthome.io/encryption and most bthome-ble samples.
    static let key = bytes("231d39c1d7cc1ab1aee224cd096db932")
    static let device = address("54:48:E6:8F:80:A5")
    /// bthome.io/encryption: 02CA09 03BF13 encrypted with counter 1122867.
    static let specExample = bytes("41 e445f3c9962b 33221100 6c7c4519")
    /// bthome-ble test_increasing_encryption_counter: the same readings at counter 1122868.
    static let nextCounter = bytes("41 3e932cc7175f 34221100 553876af")
    /// bthome-ble test_decreasing_encryption_counter: counter 1122866.
    static let previousCounter = bytes("41 723d3035fb88 32221100 9e7414c0")

    static func packet(_ result: BTHomeResult) throws -> BTHomePacket {
        guard case let .accepted(packet) = result else {
            Issue.record("expected accepted, got \(result)")
            throw SensorDecodingError(.missingBindKey, offset: -1)
        }
        return packet
    }

    @Test func decryptsTheSpecExample() throws {
        var decoder = try BTHomeDecoder(bindKey: Self.key)
        let packet = try Self.packet(try decoder.decode(serviceData: Self.specExample, address: Self.device))
        #expect(packet.deviceInfo.isEncrypted)
        #expect(packet.counter == 1_122_867)
        #expect(packet.readings.map(\.key) == ["temperature", "humidity"])
        #expect(packet.readings.map(\.value.value.json) == ["25.06", "50.55"])
        #expect(decoder.lastCounter == 1_122_867)
        // Offsets in decrypted objects are service-data offsets (CCM keeps positions).
        #expect(packet.objects.map(\.offset) == [1, 4])
    }

    @Test func decryptsBTHomeBleSamples() throws {
        // test_bindkey_correct (Shelly BLU H&T): counter 0x33221100.
        var ht = try BTHomeDecoder(bindKey: Self.key)
        let packet = try Self.packet(try ht.decode(serviceData: bytes("41a47266c95f730011223378237214"), address: Self.device))
        #expect(packet.counter == 0x3322_1100)
        #expect(packet.readings.map(\.value.value.json) == ["25.06", "50.55"])

        // test_bthome_motion (Shelly BLU Motion).
        var motion = try BTHomeDecoder(bindKey: Self.key)
        let moved = try Self.packet(try motion.decode(serviceData: bytes("4187b90011223372b0231f"), address: Self.device))
        #expect(moved.readings.map(\.key) == ["motion"])
        #expect(moved.readings.first?.value.value == .bool(true))

        // test_encrypted_shelly_blu_button_event: trigger based, packet id 7, battery 100, press.
        var button = try BTHomeDecoder(bindKey: bytes("90bffd73cb6b26ef58a7a8eba9232036"))
        let pressed = try Self.packet(try button.decode(serviceData: bytes("450aeb84467f85ba0100003188788c"),
                                                        address: address("B4:35:22:F5:3D:A4")))
        #expect(pressed.deviceInfo.isTriggerBased)
        #expect(pressed.packetID == 7)
        #expect(pressed.readings.map(\.key) == ["battery", "button"])
        #expect(pressed.readings.map(\.isEvent) == [false, true])
        #expect(pressed.readings.last?.value.value == .string("press"))
    }

    @Test func addressInTheServiceDataIsTheNonce() throws {
        // test_bthome_with_mac_encrypted: bit 1 set, the address follows (least significant first).
        var decoder = try BTHomeDecoder(bindKey: Self.key)
        let packet = try Self.packet(try decoder.decode(serviceData: bytes("43a5808fe64854f196c06ffb4900112233f08ecbde"),
                                                        address: address("C0:00:00:00:00:01")))
        #expect(packet.address == Self.device)
        #expect(packet.readings.map(\.value.value.json) == ["25.06", "50.55"])
        #expect(packet.objects.map(\.offset) == [7, 10])
    }

    @Test func wrongKeyIsAnAuthenticationFailureAtTheMIC() throws {
        var decoder = try BTHomeDecoder(bindKey: bytes("814aac74c4f17b6c1581e1ab87816b99"))
        #expect(throws: SensorDecodingError(.authenticationFailed, offset: 11)) {
            try decoder.decode(serviceData: Self.specExample, address: Self.device)
        }
        // The advertiser's address is part of the nonce: the right key from another device fails.
        var right = try BTHomeDecoder(bindKey: Self.key)
        #expect(throws: SensorDecodingError(.authenticationFailed, offset: 11)) {
            try right.decode(serviceData: Self.specExample, address: address("54:48:E6:8F:80:A6"))
        }
        #expect(right.lastCounter == nil)
    }

    @Test func replayedAndOlderCountersAreRejected() throws {
        var decoder = try BTHomeDecoder(bindKey: Self.key)
        _ = try Self.packet(try decoder.decode(serviceData: Self.specExample, address: Self.device))
        #expect(throws: SensorDecodingError(.replayedCounter(counter: 1_122_866, lastAccepted: 1_122_867), offset: 7)) {
            try decoder.decode(serviceData: Self.previousCounter, address: Self.device)
        }
        let next = try Self.packet(try decoder.decode(serviceData: Self.nextCounter, address: Self.device))
        #expect(next.counter == 1_122_868)
        #expect(decoder.lastCounter == 1_122_868)
        // An authentic older advertisement sent again later is a replay, not a repeat.
        #expect(throws: SensorDecodingError(.replayedCounter(counter: 1_122_867, lastAccepted: 1_122_868), offset: 7)) {
            try decoder.decode(serviceData: Self.specExample, address: Self.device)
        }
    }

    @Test func theSameAdvertisementRepeatedIsADuplicateNotReadings() throws {
        // test_same_service_data: the advertiser repeats its PDU until the data changes.
        var decoder = try BTHomeDecoder(bindKey: Self.key)
        _ = try Self.packet(try decoder.decode(serviceData: Self.specExample, address: Self.device))
        #expect(try decoder.decode(serviceData: Self.specExample, address: Self.device) == .duplicate)
        #expect(try decoder.decode(serviceData: Self.specExample[...], address: Self.device) == .duplicate)
        // From another address the bytes are not the device's: the nonce differs.
        #expect(throws: SensorDecodingError(.authenticationFailed, offset: 11)) {
            try decoder.decode(serviceData: Self.specExample, address: address("54:48:E6:8F:80:A6"))
        }
        _ = try Self.packet(try decoder.decode(serviceData: Self.nextCounter, address: Self.device))
        #expect(try decoder.decode(serviceData: Self.nextCounter, address: Self.device) == .duplicate)
    }

    @Test func aForgeryNeverMovesTheCounter() throws {
        var decoder = try BTHomeDecoder(bindKey: Self.key)
        _ = try Self.packet(try decoder.decode(serviceData: Self.specExample, address: Self.device))
        // A high counter with a MIC that cannot verify must not lock out the real device.
        var forged = Self.nextCounter
        forged[7] = 0xFF
        forged[10] = 0x7F
        #expect(throws: SensorDecodingError(.authenticationFailed, offset: 11)) {
            try decoder.decode(serviceData: forged, address: Self.device)
        }
        #expect(decoder.lastCounter == 1_122_867)
        _ = try Self.packet(try decoder.decode(serviceData: Self.nextCounter, address: Self.device))
    }

    @Test func aRestartedCounterNeedsAnExplicitReset() throws {
        // test_reset_encryption_counter: counter 0xFFFFFFFF, then the device restarts at 0.
        var decoder = try BTHomeDecoder(bindKey: Self.key)
        let last = try Self.packet(try decoder.decode(serviceData: bytes("41ba0db07aeef6ffffffff21fd4600"), address: Self.device))
        #expect(last.counter == 0xFFFF_FFFF)
        let restarted = bytes("41de40b50e676600000000d7cb95de")
        #expect(throws: SensorDecodingError(.replayedCounter(counter: 0, lastAccepted: 0xFFFF_FFFF), offset: 7)) {
            try decoder.decode(serviceData: restarted, address: Self.device)
        }
        decoder.resetCounter()
        #expect(try Self.packet(try decoder.decode(serviceData: restarted, address: Self.device)).counter == 0)
        // After a reset even the last frame before it decodes again: nothing is remembered.
        decoder.resetCounter()
        #expect(try Self.packet(try decoder.decode(serviceData: restarted, address: Self.device)).counter == 0)
    }

    @Test func persistedCounterSurvivesARestart() throws {
        var decoder = try BTHomeDecoder(bindKey: Self.key, lastCounter: 1_122_867)
        #expect(throws: SensorDecodingError(.replayedCounter(counter: 1_122_867, lastAccepted: 1_122_867), offset: 7)) {
            try decoder.decode(serviceData: Self.specExample, address: Self.device)
        }
    }

    @Test func plaintextFromAKeyedDeviceIsADowngradeAlarm() throws {
        // test_encryption_downgrade_fails: pressure in plaintext, while a bind key is configured.
        var decoder = try BTHomeDecoder(bindKey: Self.key)
        let plaintext = bytes("4004138a01")
        #expect(try decoder.decode(serviceData: plaintext, address: Self.device) == .downgradeAlarm(serviceData: plaintext))
        // Encrypted advertisements keep working afterwards.
        _ = try Self.packet(try decoder.decode(serviceData: Self.specExample, address: Self.device))
        #expect(try decoder.decode(serviceData: plaintext, address: Self.device) == .downgradeAlarm(serviceData: plaintext))

        // The same bytes from a keyless device are ordinary readings.
        var keyless = try BTHomeDecoder()
        let packet = try Self.packet(try keyless.decode(serviceData: plaintext, address: Self.device))
        #expect(packet.readings.first?.key == "pressure")
        #expect(packet.readings.first?.value.value.json == "1008.83")
    }

    @Test func encryptedWithoutAKeyIsAnError() throws {
        // test_encryption_key_needed.
        var decoder = try BTHomeDecoder()
        #expect(throws: SensorDecodingError(.missingBindKey, offset: 0)) {
            try decoder.decode(serviceData: bytes("41d2fcefe52eb212d600112233bc38c966"), address: address("A4:C1:38:8D:18:B2"))
        }
    }

    @Test func descriptionsNeverShowTheBindKey() throws {
        let decoder = try AdvertisementDecoder(format: .bthome, bindKey: Self.key)
        for text in ["\(decoder)", String(reflecting: decoder), "\(decoder.bthome)", String(reflecting: decoder.bthome)] {
            #expect(!text.contains("231"), "\(text)")
            #expect(!text.contains("29, 57"), "\(text)")
        }
    }

    @Test func packetIdReadsWholeNumbers() throws {
        var decoder = try BTHomeDecoder()
        for id: UInt8 in [0, 10, 200, 255] {
            #expect(try Self.packet(try decoder.decode(serviceData: [0x40, 0x00, id], address: Self.device)).packetID == id)
        }
    }

    @Test func bindKeyMustBe16Bytes() {
        #expect(throws: SensorDecodingError(.invalidBindKeyLength(15), offset: 0)) {
            try BTHomeDecoder(bindKey: Array(Self.key.dropLast()))
        }
    }

    @Test func unknownObjectIdStopsDecodingAtItsOffset() throws {
        // test_bthome_wrong_object_id and test_bthome_battery_wrong_object_id_humidity.
        var decoder = try BTHomeDecoder()
        let none = try Self.packet(try decoder.decode(serviceData: bytes("40feca09"), address: Self.device))
        #expect(none.objects.isEmpty)
        #expect(none.stoppedAt == SensorDecodingError(.unknownObjectID(0xFE), offset: 1))
        let some = try Self.packet(try decoder.decode(serviceData: bytes("40015dfe5d0903b718"), address: Self.device))
        #expect(some.readings.map(\.key) == ["battery"])
        #expect(some.objects.map(\.offset) == [1])
        #expect(some.stoppedAt == SensorDecodingError(.unknownObjectID(0xFE), offset: 3))
    }

    @Test func repeatedObjectsGetNumberedKeys() throws {
        // test_bthome_triple_temperature_double_humidity_battery.
        var decoder = try BTHomeDecoder()
        let packet = try Self.packet(try decoder.decode(serviceData: bytes("4002ca0902cf0902cf0803b71803b717015d"),
                                                        address: Self.device))
        #expect(packet.readings.map(\.key)
                == ["temperature_1", "temperature_2", "temperature_3", "humidity_1", "humidity_2", "battery"])
        #expect(packet.readings.map(\.value.value.json) == ["25.06", "25.11", "22.55", "63.27", "60.71", "93"])
        // Different ids of one property count together (test_bthome_double_voltage_different_object_id).
        let voltages = try Self.packet(try decoder.decode(serviceData: bytes("40 0001 0b000000 4a0d09 0133 0ce90c"),
                                                          address: Self.device))
        #expect(voltages.readings.map(\.key) == ["power", "voltage_1", "battery", "voltage_2"])
        #expect(voltages.readings.map(\.value.value.json) == ["0", "231.7", "51", "3.305"])
    }

    @Test func otherVersionsAreRefused() throws {
        var decoder = try BTHomeDecoder()
        // test_has_incorrect_version (version bits 111) and test_incorrect_bthome_version (0).
        #expect(throws: SensorDecodingError(.unsupportedVersion(7), offset: 0)) {
            try decoder.decode(serviceData: bytes("e102000c0404138a01"), address: Self.device)
        }
        #expect(throws: SensorDecodingError(.unsupportedVersion(0), offset: 0)) {
            try decoder.decode(serviceData: [0x00], address: Self.device)
        }
    }

    @Test func truncatedAndMalformedInputIsATypedError() throws {
        var decoder = try BTHomeDecoder()
        // test_bthome_invalid_object_payload_data_length: humidity is one byte short.
        #expect(throws: SensorDecodingError(.truncated(field: "humidity", needed: 2, available: 1), offset: 5)) {
            try decoder.decode(serviceData: bytes("4002ca0903bf"), address: Self.device)
        }
        // test_bthome_text_invalid: 0x87 is not UTF-8.
        #expect(throws: SensorDecodingError(.invalidUTF8(field: "text"), offset: 3)) {
            try decoder.decode(serviceData: bytes("44530187"), address: Self.device)
        }
        #expect(throws: SensorDecodingError(.truncated(field: "device information", needed: 1, available: 0), offset: 0)) {
            try decoder.decode(serviceData: [], address: Self.device)
        }
        // test_too_short_encryption_advertisement.
        var keyed = try BTHomeDecoder(bindKey: Self.key)
        #expect(throws: SensorDecodingError(.truncated(field: "counter and MIC", needed: 8, available: 7), offset: 1)) {
            try keyed.decode(serviceData: bytes("41ba0db07aeef600"), address: Self.device)
        }
    }

    @Test func advertisementDecoderPicksTheServiceData() throws {
        var decoder = try AdvertisementDecoder(format: .bthome, bindKey: Self.key)
        let outcome = try decoder.decode(address: Self.device,
                                         serviceData: [BluetoothUUID(0xFCD2): Self.specExample, BluetoothUUID(0xFEAA): [0x99]],
                                         manufacturerData: [:])
        guard case let .readings(readings, stop) = outcome else { Issue.record("\(outcome)"); return }
        #expect(readings.map(\.key) == ["temperature", "humidity"])
        #expect(stop == nil)
        #expect(try decoder.decode(address: Self.device, serviceData: [BluetoothUUID(0xFCD2): Self.specExample],
                                   manufacturerData: [:]) == .duplicate)
        var keyless = try AdvertisementDecoder(format: .bthome)
        var plain = try BTHomeDecoder()
        let battery = try Self.packet(try plain.decode(serviceData: bytes("40015d"), address: Self.device)).readings
        #expect(try keyless.decode(address: Self.device, serviceData: [BluetoothUUID(0xFCD2): bytes("40015dfe")], manufacturerData: [:])
                == .readings(battery, stoppedAt: SensorDecodingError(.unknownObjectID(0xFE), offset: 3)))
        #expect(try decoder.decode(address: Self.device, serviceData: [:], manufacturerData: [0x004C: [1]]) == .absent)
        #expect(decoder.bthome.lastCounter == 1_122_867)
    }
}
