import ControllerTestSupport
import Foundation
import MQTTClient
import MQTTTestSupport
import Testing

/// `attune gateway` as users run it: the built command, a config file, Debian's mosquitto.
@Suite(.serialized)
struct GatewayCommandTests {
    static func config(port: Int, extra: String = "") -> String {
        """
        # the demo peripheral on the memory radio, kept connected
        mqtt: {url: "mqtt://127.0.0.1:\(port)", client_id: cli-test}
        adapters: [{transport: memory}]
        devices:
          - name: demo
            address: "C0:00:00:00:00:01"
            address_type: random
            connect: keep
            gatt:
              - {characteristic: "2a37", notify: true, topic: heart_rate, decode: heart_rate_measurement}
        \(extra)
        """
    }

    @Test("gateway CONFIG publishes values; SIGHUP adds a device and keeps the link; SIGTERM publishes offline and exits 143",
          .timeLimit(.minutes(10)))
    func runReloadStop() async throws {
        let broker = try MosquittoBroker.start()
        defer { broker.stop() }
        let path = AttuneProcess.temporaryFile(".yaml")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.config(port: broker.port).write(toFile: path, atomically: true, encoding: .utf8)
        let observer = try BrokerRecorder(port: broker.port, filter: "attune/#", id: "cli-observer")
        let gateway = Process()
        gateway.executableURL = AttuneProcess.executable
        gateway.arguments = ["gateway", path]
        gateway.environment = AttuneProcess.privateStoreEnvironment()
        let errors = Pipe()
        gateway.standardError = errors
        gateway.standardOutput = FileHandle.nullDevice
        try gateway.run()
        defer { if gateway.isRunning { gateway.interrupt() } }

        let value = await observer.first { $0.topic == "attune/dev/demo/heart_rate" }
        #expect(value?.text?.contains("\"unit\": \"bpm\"") == true, "\(value?.text ?? "no value")")
        let onlineCount = observer.messages.filter { $0.topic == "attune/dev/demo/availability" && $0.text == "online" }.count

        // A second device (advertisements only) joins; the demo's link stays up.
        try Self.config(port: broker.port, extra: """
          - {name: beacon, address: "C0:00:00:00:00:09", address_type: random, decode: raw}
        """).write(toFile: path, atomically: true, encoding: .utf8)
        let before = observer.messages.count
        kill(gateway.processIdentifier, SIGHUP)
        let explained = await observer.first(after: before) { $0.topic == "attune/dev/demo/heart_rate" }
        #expect(explained != nil, "values go on after the reload")
        #expect(!observer.messages.dropFirst(before).contains { $0.topic == "attune/dev/demo/availability" && $0.text == "offline" },
                "the unchanged device kept its link")
        #expect(observer.messages.filter { $0.topic == "attune/dev/demo/availability" && $0.text == "online" }.count == onlineCount)

        // --explain reads the running gateway's retained state.
        let explain = try await AttuneProcess.run(["gateway", path, "--explain", "demo"], timeout: 60)
        #expect(explain.status == 0, "\(explain.stderr)")
        #expect(explain.stdout.contains("\"connected\": true") && explain.stdout.contains("\"subscriptions\": [\"heart_rate\"]"),
                "\(explain.stdout)")

        gateway.terminate()
        let status = try await offPool { () -> Int32 in
            gateway.waitUntilExit()
            return gateway.terminationStatus
        }
        #expect(status == 143, "SIGTERM exits with 128 + 15")
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(stderr.contains("reloaded \(path): 1 added, 0 removed, 0 changed, 1 unchanged"), "\(stderr)")
        let offline = await observer.first { $0.topic == "attune/gateway/cli-test/status" && $0.text == "offline" }
        #expect(offline != nil, "the clean stop published offline")
        let deviceOffline = await observer.first { $0.topic == "attune/dev/demo/availability" && $0.text == "offline" }
        #expect(deviceOffline != nil)
        await observer.client.close()
    }

    @Test("gateway --check prints the plan; a bad config names the path and position, exit 1")
    func check() async throws {
        let path = AttuneProcess.temporaryFile(".yaml")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.config(port: 1883).write(toFile: path, atomically: true, encoding: .utf8)
        let good = try await AttuneProcess.run(["gateway", path, "--check"], timeout: 60)
        #expect(good.status == 0)
        #expect(good.stdout.contains("subscribe 2a37 (notify) -> attune/dev/demo/heart_rate as heart_rate_measurement"), "\(good.stdout)")
        try Self.config(port: 1883).replacingOccurrences(of: "\"2a37\"", with: "\"2a3x\"").write(toFile: path, atomically: true, encoding: .utf8)
        let bad = try await AttuneProcess.run(["gateway", path, "--check"], timeout: 60)
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("devices[0].gatt[0].characteristic"), "\(bad.stderr)")
    }
}
