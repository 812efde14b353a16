import SensorDecoding
import Testing
@testable import GatewayConfig

/// The `--check` text is stable: these tests pin it.
@Suite struct PlanTests {
    @Test func issueSamplePlan() throws {
        #expect(try load(issueSample).plan == """
        broker: mqtt://127.0.0.1:1883 as attune-kitchen, keepalive 30 s
        topics: attune/gateway/attune-kitchen/status (online, offline as last will), attune/gateway/attune-kitchen/adapters, attune/dev/<name>/...
        discovery: Home Assistant, homeassistant/device/<id>/config, resent on homeassistant/status online
        adapters: 1, 5 connection slots in all
          1. hci0: 5 slots
        scan: passive, interval 320 ms, window 300 ms
        unknown devices: ignored
        devices: 2 (1 keep, 0 poll, 0 on_demand, 1 never)
          fridge: A4:C1:38:11:22:33 public; advertisements only; decoder bthome (encrypted, bindkey set)
          hr1: F0:F1:F2:F3:F4:F5 random; connect keep
            subscribe 2a37 (notify) -> attune/dev/hr1/heart_rate as heart_rate_measurement
            read 2a19 every 1 min -> attune/dev/hr1/battery as u8
            write 2a39 <- attune/dev/hr1/control/set, result on attune/dev/hr1/control/result
            note: every 10 min is ignored (it is for connect: poll)

        """)
    }

    @Test func planOfTLSLoginPollAndShortage() throws {
        let c = try load("""
        mqtt: {url: "mqtts://b.example", client_id: gw, base: home/ble, username: attune, password_file: /pw}
        adapters: [{transport: "tcp:127.0.0.1:9000", max_connections: 1}]
        scan: {mode: auto, interval_ms: 100, window_ms: 50}
        discover_unknown: true
        devices:
          - {name: a, irk: 000102030405060708090a0b0c0d0e0f, connect: keep}
          - {name: b, address: "00:00:00:00:00:02", connect: keep}
          - name: c
            address: "00:00:00:00:00:03"
            gatt: [{characteristic: "2a6e", service: "181a", read: 5m, decode: s16le, scale: 0.01, unit: C, topic: t}]
        """)
        #expect(c.plan == """
        broker: mqtts://b.example:8883 as gw, keepalive 30 s
          tls: CA the system's
          login: attune, password from /pw
        topics: home/ble/gateway/gw/status (online, offline as last will), home/ble/gateway/gw/adapters, home/ble/dev/<name>/...
        discovery: off
        adapters: 1, 1 connection slot in all
          1. tcp:127.0.0.1:9000: 1 slot
        scan: auto, interval 100 ms, window 50 ms
        unknown devices: published on home/ble/adv/<address>
        devices: 3 (2 keep, 1 poll, 0 on_demand, 0 never)
          a: resolvable private addresses (irk); connect keep
          b: 00:00:00:00:00:02 public; connect keep
          c: 00:00:00:00:00:03 public; connect poll every 5 min
            read 2a6e in service 181a every 5 min -> home/ble/dev/c/t as s16le, scale 0.01, unit C
        warning: 2 keep devices but 1 connection slots; 1 will wait for a slot

        """)
    }
}
