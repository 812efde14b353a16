import SensorDecoding
import Testing
@testable import GatewayConfig

/// The issue's sample config, verbatim.
let issueSample = """
mqtt:
  url: mqtt://127.0.0.1:1883        # mqtts:// with ca/cert/key; username/password, or password_file
  client_id: attune-kitchen
  base: attune                      # topic prefix
  discovery: {prefix: homeassistant} # omit to turn off Home Assistant discovery
adapters:
  - {transport: hci0, max_connections: 5}     # any --transport form: hci0, tcp:H:P, user:hci1, ...
scan: {mode: passive, interval_ms: 320, window_ms: 300}   # passive | active | auto
discover_unknown: false             # publish advertisements of devices not listed
devices:
  - name: fridge
    address: "A4:C1:38:11:22:33"    # or irk: HEX for a device that uses resolvable private addresses
    decode: bthome                   # bthome | ibeacon | eddystone | raw
    bindkey: 231d39c1d7cc1ab1aee224cd096db932   # BTHome encryption key
  - name: hr1
    address: "F0:F1:F2:F3:F4:F5"
    address_type: random
    connect: keep                   # keep | poll | on_demand | never
    every: 10m                      # for poll
    gatt:
      - {characteristic: "2a37", notify: true, topic: heart_rate, decode: heart_rate_measurement}
      - {characteristic: "2a19", read: 60s, topic: battery, decode: u8}
      - {characteristic: "2a39", write: true, topic: control}
"""

/// The smallest valid config, for tests that add one section to it.
let minimalHead = """
mqtt: {url: "mqtt://broker", client_id: gw}
adapters: [{transport: hci0}]

"""

func load(_ text: String) throws(GatewayConfigError) -> GatewayConfiguration {
    try GatewayConfiguration(yaml: Array(text.utf8))
}

/// The error `text` fails with, or nil when it loads.
func loadError(_ text: String) -> GatewayConfigError? {
    do {
        _ = try load(text)
        return nil
    } catch {
        return error
    }
}

/// The repository's root, from this file's path.
let repositoryRoot: String = {
    var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}()
