import SensorDecoding
import Testing
@testable import GatewayConfig

/// Each kind of mistake gets its own error, naming the path (and line:column) exactly.
@Suite struct ConfigErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let yaml: String
        let expected: String
        var testDescription: String { expected }
    }

    static let device = minimalHead + "devices:\n  - name: hr1\n    address: \"F0:F1:F2:F3:F4:F5\"\n"

    static let cases: [Case] = [
        // Unknown keys, with a hint when one is near.
        Case(yaml: minimalHead + "devics: []\n", expected: "devics: unknown key; did you mean devices?"),
        Case(yaml: "mqtt: {url: \"mqtt://b\", client_id: gw, usrname: u}\nadapters: [{transport: hci0}]\n",
             expected: "mqtt.usrname: unknown key; did you mean username?"),
        Case(yaml: device + "    gatt: [{characteristic: \"2a37\", notfy: true}]\n",
             expected: "devices[0].gatt[0].notfy: unknown key; did you mean notify?"),
        Case(yaml: minimalHead + "\"odd key\": 1\n", expected: "[\"odd key\"]: unknown key"),
        // Wrong types.
        Case(yaml: "mqtt: [1]\nadapters: [{transport: hci0}]\n", expected: "mqtt: expected a mapping, got a sequence"),
        Case(yaml: "mqtt: {url: \"mqtt://b\", client_id: gw}\nadapters: [{transport: hci0, max_connections: \"5\"}]\n",
             expected: "adapters[0].max_connections: expected an integer, got a string"),
        Case(yaml: "mqtt: {url: \"mqtt://b\", client_id: gw}\nadapters: [{transport: hci0, max_connections: 65}]\n",
             expected: "adapters[0].max_connections: 65 is out of range 1...64"),
        Case(yaml: minimalHead + "discover_unknown: \"false\"\n",
             expected: "discover_unknown: expected true or false, got a string"),
        Case(yaml: minimalHead + "discover_unknown: yes\n", expected: "discover_unknown: expected true or false, got a string"),
        Case(yaml: minimalHead + "devices: {name: x}\n", expected: "devices: expected a sequence, got a mapping"),
        Case(yaml: device + "    gatt: [{characteristic: [1], notify: true}]\n",
             expected: "devices[0].gatt[0].characteristic: expected a string, got a sequence"),
        Case(yaml: "[1, 2]\n", expected: "expected a mapping at the top of the config, got a sequence"),
        Case(yaml: "", expected: "expected a mapping at the top of the config, got null"),
        // Values.
        Case(yaml: device + "  - name: x\n    address: \"00:00:00:00:00:01\"\n  - name: y\n    address: \"00:00:00:00:00:02\"\n"
                + "    gatt: [{characteristic: \"2a37\", notify: true}, {characteristic: heart, notify: true}]\n",
             expected: "devices[2].gatt[1].characteristic: not a UUID"),
        Case(yaml: minimalHead + "devices: [{name: a, address: \"A4:C1:38:11:22\"}]\n",
             expected: "devices[0].address: not a Bluetooth address (AA:BB:CC:DD:EE:FF)"),
        Case(yaml: minimalHead + "devices: [{name: a, irk: 00112233}]\n",
             expected: "devices[0].irk: not 32 hex digits (a 16-byte key)"),
        Case(yaml: minimalHead + "devices: [{name: a, address: \"00:00:00:00:00:01\", decode: bthome, bindkey: zz}]\n",
             expected: "devices[0].bindkey: not 32 hex digits (a 16-byte key)"),
        Case(yaml: minimalHead + "devices: [{name: a, address: \"00:00:00:00:00:01\", decode: bthomee}]\n",
             expected: "devices[0].decode: \"bthomee\" is not one of bthome, ibeacon, eddystone, raw"),
        Case(yaml: minimalHead + "devices: [{name: a, address: \"00:00:00:00:00:01\", address_type: static}]\n",
             expected: "devices[0].address_type: \"static\" is not one of public, random"),
        Case(yaml: device + "    gatt: [{characteristic: \"2a37\", notify: true, decode: u24le}]\n",
             expected: "devices[0].gatt[0].decode: \"u24le\" is not one of u8, u16le, s16le, u32le, s32le, float32le, "
                + "utf8, hex, heart_rate_measurement, battery_level, temperature, humidity, pressure"),
        Case(yaml: minimalHead + "scan: {mode: passive, interval_ms: 100, window_ms: 200}\n",
             expected: "scan.window_ms: 200 ms is longer than the interval (100 ms)"),
        Case(yaml: minimalHead + "scan: {interval_ms: 2}\n", expected: "scan.interval_ms: must be 2.5 to 10240 ms"),
        Case(yaml: minimalHead + "scan: {interval_ms: 10241}\n", expected: "scan.interval_ms: must be 2.5 to 10240 ms"),
        Case(yaml: minimalHead + "scan: {mode: aggressive}\n",
             expected: "scan.mode: \"aggressive\" is not one of passive, active, auto"),
        Case(yaml: minimalHead + "devices: [{name: a, address: \"00:00:00:00:00:01\", every: 8d}]\n",
             expected: "devices[0].every: not a duration (like 250ms, 10s, 10m, 1h, or a number of seconds) "
                + "greater than 0 and at most 7 days"),
        // Topics.
        Case(yaml: minimalHead + "devices: [{name: \"a/b\", address: \"00:00:00:00:00:01\"}]\n",
             expected: "devices[0].name: contains / (not usable in an MQTT topic level)"),
        Case(yaml: minimalHead + "devices: [{name: \"a+\", address: \"00:00:00:00:00:01\"}]\n",
             expected: "devices[0].name: contains + (not usable in an MQTT topic level)"),
        Case(yaml: minimalHead + "devices: [{name: \"#\", address: \"00:00:00:00:00:01\"}]\n",
             expected: "devices[0].name: contains # (not usable in an MQTT topic level)"),
        Case(yaml: minimalHead + "devices: [{name: \"\", address: \"00:00:00:00:00:01\"}]\n",
             expected: "devices[0].name: empty (not usable in an MQTT topic)"),
        Case(yaml: minimalHead + "devices: [{name: , address: \"00:00:00:00:00:01\"}]\n",
             expected: "devices[0].name: expected a string, got null"),
        Case(yaml: device + "    gatt: [{characteristic: \"2a37\", notify: true, topic: \"hr/x\"}]\n",
             expected: "devices[0].gatt[0].topic: contains / (not usable in an MQTT topic level)"),
        Case(yaml: device + "    gatt: [{characteristic: \"2a37\", notify: true, topic: state}]\n",
             expected: "devices[0].gatt[0].topic: \"state\" is the gateway's own topic; choose another"),
        Case(yaml: "mqtt: {url: \"mqtt://b\", client_id: gw, base: \"a//b\"}\nadapters: [{transport: hci0}]\n",
             expected: "mqtt.base: empty (not usable in an MQTT topic) (in \"a//b\")"),
        // Uniqueness and combinations.
        Case(yaml: device + "  - {name: hr1, address: \"00:00:00:00:00:01\"}\n",
             expected: "devices[1].name: \"hr1\" is used by devices[0] too"),
        Case(yaml: device + "  - {name: hr2, address: \"f0:f1:f2:f3:f4:f5\", address_type: random}\n",
             expected: "devices[1].address: F0:F1:F2:F3:F4:F5 is used by devices[0] too"),
        Case(yaml: minimalHead + "devices: [{name: a, irk: 000102030405060708090a0b0c0d0e0f},"
                + " {name: b, irk: 000102030405060708090A0B0C0D0E0F}]\n",
             expected: "devices[1].irk: this irk is used by devices[0] too"),
        Case(yaml: minimalHead + "devices: [{name: a}]\n", expected: "devices[0].address: missing (or give irk)"),
        Case(yaml: minimalHead + "devices: [{name: a, address: \"00:00:00:00:00:01\", irk: 000102030405060708090a0b0c0d0e0f}]\n",
             expected: "devices[0].irk: give address or irk, not both"),
        Case(yaml: minimalHead + "devices: [{name: a, address: \"00:00:00:00:00:01\", bindkey: 000102030405060708090a0b0c0d0e0f}]\n",
             expected: "devices[0].bindkey: only with decode: bthome"),
        Case(yaml: device + "    connect: never\n    gatt: [{characteristic: \"2a37\", notify: true}]\n",
             expected: "devices[0].connect: never, but the device has gatt entries"),
        Case(yaml: device + "    gatt: [{characteristic: \"2a37\"}]\n",
             expected: "devices[0].gatt[0]: does nothing: set notify, indicate, read or write"),
        Case(yaml: device + "    gatt: [{characteristic: \"2a37\", notify: true, indicate: true}]\n",
             expected: "devices[0].gatt[0].indicate: choose notify or indicate, not both"),
        Case(yaml: device + "    gatt: [{characteristic: \"2a37\", notify: true}, {characteristic: \"2A37\", read: true, topic: b}]\n",
             expected: "devices[0].gatt[1].characteristic: 2A37 is bound by devices[0].gatt[0] too"),
        Case(yaml: device + "    gatt: [{characteristic: \"2a37\", notify: true, topic: t}, {characteristic: \"2a38\", read: true, topic: t}]\n",
             expected: "devices[0].gatt[1].topic: \"t\" is used by devices[0].gatt[0] too"),
        Case(yaml: device + "    gatt: [{characteristic: \"2a00\", read: true, decode: utf8, scale: 2}]\n",
             expected: "devices[0].gatt[0].scale: does not apply to decode: utf8"),
        Case(yaml: "mqtt: {url: \"mqtt://b\", client_id: gw}\nadapters: [{transport: hci0}, {transport: hci0}]\n",
             expected: "adapters[1].transport: \"hci0\" is listed by adapters[0] too"),
        Case(yaml: "mqtt: {url: \"mqtt://b\", client_id: gw}\nadapters: []\n", expected: "adapters: empty; list at least one adapter"),
        Case(yaml: "mqtt: {url: \"mqtt://b\", client_id: gw}\n", expected: "adapters: missing"),
        // MQTT.
        Case(yaml: "mqtt: {client_id: gw}\nadapters: [{transport: hci0}]\n", expected: "mqtt.url: missing"),
        Case(yaml: "mqtt: {url: \"http://b\", client_id: gw}\nadapters: [{transport: hci0}]\n",
             expected: "mqtt.url: not an mqtt:// or mqtts:// URL"),
        Case(yaml: "mqtt: {url: \"mqtt://user:hunter2@b\", client_id: gw}\nadapters: [{transport: hci0}]\n",
             expected: "mqtt.url: has credentials in it; use username and password_file instead"),
        Case(yaml: "mqtt: {url: \"mqtt://b:99999\", client_id: gw}\nadapters: [{transport: hci0}]\n",
             expected: "mqtt.url: has a port that is not 1...65535"),
        Case(yaml: "mqtt: {url: \"mqtt://b\", client_id: gw, ca: /ca.pem}\nadapters: [{transport: hci0}]\n",
             expected: "mqtt.ca: needs an mqtts:// url"),
        Case(yaml: "mqtt: {url: \"mqtts://b\", client_id: gw, cert: /c.pem}\nadapters: [{transport: hci0}]\n",
             expected: "mqtt.cert: needs key as well"),
        Case(yaml: "mqtt: {url: \"mqtt://b\", client_id: gw, username: u, password: p, password_file: /f}\nadapters: [{transport: hci0}]\n",
             expected: "mqtt.password_file: give password or password_file, not both"),
        Case(yaml: "mqtt: {url: \"mqtt://b\", client_id: gw, password: p}\nadapters: [{transport: hci0}]\n",
             expected: "mqtt.password: needs a username"),
        Case(yaml: "mqtt: {url: \"mqtt://b\", client_id: gw, keepalive: 70000}\nadapters: [{transport: hci0}]\n",
             expected: "mqtt.keepalive: must be 1 s to 65535 s (the CONNECT packet's range)"),
        Case(yaml: "mqtt: {url: \"mqtt://b\"}\nadapters: [{transport: hci0}]\n", expected: "mqtt.client_id: missing"),
    ]

    @Test(arguments: cases) func errorNamesItsPath(_ c: Case) {
        #expect(loadError(c.yaml)?.description == c.expected)
    }

    /// The position is the offending node's, 1-based, and `report(file:)` prints it as compilers do.
    @Test func positionsAreLineAndColumn() throws {
        let yaml = minimalHead + """
        devices:
          - name: a
            address: "00:00:00:00:00:01"
            gatt:
              - {characteristic: "2a37", notify: true}
              - {characteristic: nope, notify: true}
        """
        let error = try #require(loadError(yaml))
        #expect(error.description == "devices[0].gatt[1].characteristic: not a UUID")
        #expect(error.line == 8 && error.column == 26)
        #expect(error.report(file: "gw.yaml") == "gw.yaml:8:26: devices[0].gatt[1].characteristic: not a UUID")
    }

    /// A secret never appears in an error about it.
    @Test func errorsDoNotEchoSecrets() {
        let url = loadError("mqtt: {url: \"mqtt://user:hunter2@b\", client_id: gw}\nadapters: [{transport: hci0}]\n")
        #expect(url.map { !"\($0)".contains("hunter2") } == true)
        let key = loadError(minimalHead + "devices: [{name: a, address: \"00:00:00:00:00:01\", decode: bthome, "
            + "bindkey: 231d39c1d7cc1ab1aee224cd096db9zz}]\n")
        #expect(key.map { !"\($0)".contains("231d39") } == true)
    }
}
