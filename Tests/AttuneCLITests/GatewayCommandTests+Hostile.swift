import Foundation
import Testing

/// Hostile configs through the built command: each `attune gateway F --check` exits 1 (an
/// exit, never a signal: a crash would show as 128 + its number) with one error line that
/// names the file and the path of the value at fault.
extension GatewayCommandTests {
    /// A valid config with `devices` as given (YAML flow lines) and `mqtt` extended by `broker`.
    static func hostile(devices: String, broker: String = "") -> String {
        """
        mqtt: {url: "mqtt://127.0.0.1:1883", client_id: hostile\(broker)}
        adapters: [{transport: memory}]
        devices:
        \(devices)
        """
    }

    /// Runs `--check` on `text` and returns its result; the file is removed afterwards.
    static func check(_ text: String) async throws -> AttuneProcess {
        let path = AttuneProcess.temporaryFile(".yaml")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try await AttuneProcess.run(["gateway", path, "--check"], timeout: 120)
        // The report starts with the file it is about (FILE:LINE:COLUMN: path: message).
        #expect(result.stderr.contains(path), "the error names the file: \(result.stderr)")
        return result
    }

    static let fine = "  - {name: demo, address: \"C0:00:00:00:00:01\", address_type: random}"

    @Test("--check on hostile configs: unknown keys, wrong types, 10,000 devices, unreadable password files: exit 1 with the path, no crash",
          arguments: [HostileConfig]([
            HostileConfig("unknown top-level key", hostile(devices: fine) + "\nmqtt_url: x\n", "mqtt_url: unknown key"),
            HostileConfig("unknown device key", hostile(devices: fine + "\n  - {name: b, adress: \"C0:00:00:00:00:02\"}"),
             "devices[1].adress: unknown key; did you mean address?"),
            HostileConfig("unknown gatt key", hostile(devices: """
              - name: hr
                address: "C0:00:00:00:00:03"
                connect: keep
                gatt: [{characteristic: "2a37", notfy: true, topic: hr}]
            """), "devices[0].gatt[0].notfy: unknown key"),
            HostileConfig("characteristic not a UUID", hostile(devices: """
              - {name: a, address: "C0:00:00:00:00:01"}
              - {name: b, address: "C0:00:00:00:00:02"}
              - name: c
                address: "C0:00:00:00:00:03"
                connect: keep
                gatt: [{characteristic: "hr-ish", notify: true, topic: hr}]
            """), "devices[2].gatt[0].characteristic: not a UUID"),
            HostileConfig("max_connections a string", hostile(devices: fine).replacingOccurrences(
                of: "{transport: memory}", with: "{transport: memory, max_connections: \"five\"}"),
             "adapters[0].max_connections: expected an integer"),
            HostileConfig("devices a mapping", hostile(devices: "  {name: demo}"), "devices: expected a sequence"),
            HostileConfig("notify a sequence", hostile(devices: """
              - name: hr
                address: "C0:00:00:00:00:03"
                connect: keep
                gatt: [{characteristic: "2a37", notify: [1, 2], topic: hr}]
            """), "devices[0].gatt[0].notify"),
            HostileConfig("address a number", hostile(devices: "  - {name: demo, address: 42}"), "devices[0].address"),
            HostileConfig("every not a duration", hostile(devices: """
              - {name: p, address: "C0:00:00:00:00:04", connect: poll, every: soon}
            """), "devices[0].every: not a duration"),
            HostileConfig("password file missing", hostile(devices: fine, broker: ", username: u, password_file: /nonexistent/attune/secret"),
             "mqtt.password_file: cannot read /nonexistent/attune/secret"),
            HostileConfig("password file a directory", hostile(devices: fine, broker: ", username: u, password_file: /"),
             "mqtt.password_file: cannot read /"),
          ]))
    func hostileConfig(_ hostile: HostileConfig) async throws {
        let (what, expected) = (hostile.what, hostile.expected)
        let result = try await Self.check(hostile.text)
        #expect(result.status == 1, "\(what): exit \(result.status) (not a signal), stderr: \(result.stderr)")
        #expect(result.stderr.contains(expected), "\(what): \(result.stderr)")
        #expect(result.stdout.isEmpty, "\(what): no plan printed for a bad config: \(result.stdout.prefix(200))")
    }

    @Test("--check with 10,000 devices refuses the list by its path and count, quickly and without a crash",
          .timeLimit(.minutes(10)))
    func tenThousandDevices() async throws {
        var lines: [String] = []
        lines.reserveCapacity(10_000)
        for index in 0..<10_000 {
            let low = UInt8(truncatingIfNeeded: index), high = UInt8(truncatingIfNeeded: index >> 8)
            lines.append("  - {name: d\(index), address: \"C0:00:00:00:\(String(format: "%02X:%02X", high, low))\"}")
        }
        let result = try await Self.check(Self.hostile(devices: lines.joined(separator: "\n")))
        #expect(result.status == 1, "exit \(result.status), stderr: \(result.stderr.prefix(500))")
        #expect(result.stderr.contains("devices: 10000 entries; at most 4096"), "\(result.stderr.prefix(500))")
    }
}

/// One hostile config for `--check`, and the path and message its error must contain.
struct HostileConfig: Sendable, CustomTestStringConvertible {
    let what: String
    let text: String
    let expected: String
    init(_ what: String, _ text: String, _ expected: String) {
        self.what = what
        self.text = text
        self.expected = expected
    }
    var testDescription: String { what }
}
