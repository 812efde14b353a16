import SensorDecoding
import Testing
import BluetoothCore
@testable import GatewayConfig

/// The issue's sample, the shipped example and the JSON form load to the values they say.
@Suite struct SampleConfigTests {
    @Test func issueSampleLoadsToItsValues() throws {
        let c = try load(issueSample)
        #expect(c.mqtt.broker == MQTTBrokerURL(scheme: .mqtt, host: "127.0.0.1", port: 1883))
        #expect(c.mqtt.clientID == "attune-kitchen")
        #expect(c.mqtt.base == "attune")
        #expect(c.mqtt.discovery == DiscoveryConfiguration(prefix: "homeassistant"))
        #expect(c.mqtt.keepalive == .seconds(30))
        #expect(c.mqtt.username == nil && c.mqtt.password == nil && c.mqtt.passwordFile == nil)
        #expect(c.adapters == [AdapterConfiguration(transport: "hci0", maxConnections: 5)])
        #expect(c.scan == ScanConfiguration(mode: .passive, intervalUnits: 512, windowUnits: 480))
        #expect(c.scan.intervalMilliseconds == 320 && c.scan.windowMilliseconds == 300)
        #expect(c.discoverUnknown == false)
        #expect(c.devices.count == 2)

        let fridge = c.devices[0]
        #expect(fridge.name == "fridge")
        #expect(fridge.identity == .address(BluetoothAddress(0xA4, 0xC1, 0x38, 0x11, 0x22, 0x33), .public))
        #expect(fridge.advertisement == .bthome)
        #expect(fridge.bindkey?.bytes == [0x23, 0x1d, 0x39, 0xc1, 0xd7, 0xcc, 0x1a, 0xb1,
                                          0xae, 0xe2, 0x24, 0xcd, 0x09, 0x6d, 0xb9, 0x32])
        #expect(fridge.connect == .never)
        #expect(fridge.gatt.isEmpty)

        let hr = c.devices[1]
        #expect(hr.identity == .address(BluetoothAddress(0xF0, 0xF1, 0xF2, 0xF3, 0xF4, 0xF5), .random))
        #expect(hr.connect == .keep)
        #expect(hr.every == .seconds(600))
        #expect(hr.pollInterval == nil)
        #expect(hr.advertisement == nil)
        #expect(hr.gatt == [
            CharacteristicBinding(characteristic: 0x2A37, subscription: .notify, topic: "heart_rate",
                                  format: .heartRateMeasurement),
            CharacteristicBinding(characteristic: 0x2A19, read: .every(.seconds(60)), topic: "battery", format: .u8),
            CharacteristicBinding(characteristic: 0x2A39, write: true, topic: "control"),
        ])
    }

    /// The same config as JSON (JSON is YAML) loads to the same value.
    @Test func jsonFormLoadsTheSame() throws {
        let json = """
        {"mqtt": {"url": "mqtt://127.0.0.1:1883", "client_id": "attune-kitchen", "base": "attune",
                  "discovery": {"prefix": "homeassistant"}},
         "adapters": [{"transport": "hci0", "max_connections": 5}],
         "scan": {"mode": "passive", "interval_ms": 320, "window_ms": 300},
         "discover_unknown": false,
         "devices": [
           {"name": "fridge", "address": "A4:C1:38:11:22:33", "decode": "bthome",
            "bindkey": "231d39c1d7cc1ab1aee224cd096db932"},
           {"name": "hr1", "address": "F0:F1:F2:F3:F4:F5", "address_type": "random", "connect": "keep",
            "every": "10m",
            "gatt": [
              {"characteristic": "2a37", "notify": true, "topic": "heart_rate", "decode": "heart_rate_measurement"},
              {"characteristic": "2a19", "read": "60s", "topic": "battery", "decode": "u8"},
              {"characteristic": "2a39", "write": true, "topic": "control"}]}]}
        """
        #expect(try load(json) == load(issueSample))
    }

    /// Docs/attune-gateway.example.yaml, the commented sample the docs point at, loads.
    @Test func shippedExampleLoads() throws {
        let bytes = try SystemFile.read(repositoryRoot + "/Docs/attune-gateway.example.yaml", limit: 1 << 20)
        let c = try GatewayConfiguration(yaml: bytes)
        #expect(c.devices.map(\.name) == ["fridge", "hr1", "greenhouse", "tag"])
        let greenhouse = c.devices[2]
        #expect(greenhouse.connect == .poll)
        #expect(greenhouse.pollInterval == .seconds(600))
        #expect(greenhouse.gatt[0].service == BluetoothUUID(0x181A))
        #expect(greenhouse.gatt[0].read == .onConnect)
        #expect(greenhouse.gatt[2].characteristic == BluetoothUUID("a3c87500-8ed3-4bdf-8a39-a01bebede295"))
        #expect(greenhouse.gatt[2].scale == 0.1 && greenhouse.gatt[2].unit == "%")
        guard case .irk(let irk) = c.devices[3].identity else {
            Issue.record("tag is not an irk device")
            return
        }
        #expect(irk.bytes.first == 0x0A && irk.bytes.last == 0xF9)
        #expect(c.devices[3].connect == .never)
    }

    /// Defaults: connect mode from the gatt entries, poll interval from the reads, base,
    /// keepalive, scan and max_connections.
    @Test func defaults() throws {
        let c = try load(minimalHead + """
        devices:
          - {name: a, address: "00:00:00:00:00:01"}
          - name: b
            address: "00:00:00:00:00:02"
            gatt: [{characteristic: "2a19", read: 5m}, {characteristic: "2a1a", read: 90s}]
          - name: c
            address: "00:00:00:00:00:03"
            gatt: [{characteristic: "2a19", read: 5m}, {characteristic: "2a37", indicate: true}]
          - name: d
            address: "00:00:00:00:00:04"
            connect: poll
            gatt: [{characteristic: "2a39", write: true}]
        """)
        #expect(c.mqtt.base == "attune" && c.mqtt.keepalive == .seconds(30) && c.mqtt.discovery == nil)
        #expect(c.mqtt.broker.port == 1883)
        #expect(c.adapters[0].maxConnections == 5)
        #expect(c.scan == ScanConfiguration())
        #expect(c.devices.map(\.connect) == [.never, .poll, .keep, .poll])
        #expect(c.devices[1].pollInterval == .seconds(90))
        #expect(c.devices[3].pollInterval == .seconds(600))
        #expect(c.devices[2].gatt[1].subscription == .indicate)
        #expect(c.devices[3].gatt[0].topic == "2a39" && c.devices[3].gatt[0].format == .hex)
    }

    @Test func brokerURLs() throws {
        func broker(_ url: String) throws -> MQTTBrokerURL {
            try load("mqtt: {url: \"\(url)\", client_id: gw}\nadapters: [{transport: hci0}]\n").mqtt.broker
        }
        #expect(try broker("mqtts://broker.example") == MQTTBrokerURL(scheme: .mqtts, host: "broker.example", port: 8883))
        #expect(try broker("mqtt://[::1]:1884/") == MQTTBrokerURL(scheme: .mqtt, host: "::1", port: 1884))
        #expect(try broker("mqtt://[::1]:1884").description == "mqtt://[::1]:1884")
        let tls = try load("""
        mqtt: {url: "mqtts://b:8884", client_id: gw, ca: /ca.pem, cert: /c.pem, key: /k.pem}
        adapters: [{transport: hci0}]
        """)
        #expect(tls.mqtt.caFile == "/ca.pem" && tls.mqtt.certFile == "/c.pem" && tls.mqtt.keyFile == "/k.pem")
    }

    /// A plain `2902` is a number to YAML but reads as the UUID it spells; `0x2a37` too.
    @Test func uuidsWrittenAsNumbers() throws {
        let c = try load(minimalHead + """
        devices:
          - name: a
            address: "00:00:00:00:00:01"
            gatt: [{characteristic: 2902, read: true}, {characteristic: 0x2a37, notify: true}]
        """)
        #expect(c.devices[0].gatt.map(\.characteristic) == [BluetoothUUID(0x2902), BluetoothUUID(0x2A37)])
    }

    /// Addresses need no quotes, in block or flow style.
    @Test func unquotedAddresses() throws {
        let c = try load(minimalHead + """
        devices:
          - {name: a, address: A4:C1:38:11:22:33}
          - name: b
            address: a4:c1:38:11:22:34
        """)
        #expect(c.devices.map(\.identity) == [.address(BluetoothAddress(0xA4, 0xC1, 0x38, 0x11, 0x22, 0x33), .public),
                                              .address(BluetoothAddress(0xA4, 0xC1, 0x38, 0x11, 0x22, 0x34), .public)])
    }

    /// `load(path:)` reads through the injected reader, asking for one byte over the limit.
    @Test func loadFromAPath() throws {
        let c = try GatewayConfiguration.load(path: "/etc/attune/gw.yaml") { path, limit throws(FileReadError) in
            #expect(path == "/etc/attune/gw.yaml" && limit == (4 << 20) + 1)
            return Array(issueSample.utf8)
        }
        #expect(c == (try load(issueSample)))
        #expect(throws: GatewayConfigError(path: .root, mark: nil, message: "/big.yaml is larger than 10 bytes")) {
            try GatewayConfiguration.load(path: "/big.yaml", limits: YAMLLimits(maxBytes: 10)) { _, limit throws(FileReadError) in
                Array(repeating: 0x20, count: limit)
            }
        }
    }
}
