import Attune
import Foundation
import Gateway
import GatewayConfig
import MQTTClient
import MQTTTestSupport
import Testing
import WaitTestSupport

/// Two gateways on two controllers of one Bumble link (Scripts/interop/lab.py with two
/// host controllers), one Bumble peripheral with a notifying characteristic: one gateway
/// owns it; the owner is killed and the other takes over within 10 s.
@Suite(.serialized)
struct GatewayBumbleFleetTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static var interop: URL { root.appendingPathComponent("Scripts/interop") }

    static var pythonAvailable: Bool {
        ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/python3") } ?? false
    }

    static func config(port: Int, id: String, address: String) -> String {
        """
        {"mqtt": {"url": "mqtt://127.0.0.1:\(port)", "client_id": "\(id)", "base": "attune"},
         "adapters": [{"transport": "bumble", "max_connections": 1}],
         "devices": [
           {"name": "peer", "address": "\(address)", "address_type": "random", "connect": "keep",
            "gatt": [{"characteristic": "7a7e0005-5d4c-4f8e-9a64-0c3f1e2b6a10", "notify": true, "topic": "value", "decode": "hex"}]}
         ]}
        """
    }

    static func via(_ message: MQTTMessage) -> String? {
        guard let text = message.text, let range = text.range(of: "\"via\": \"") else { return nil }
        return String(text[range.upperBound...].prefix { $0 != "\"" })
    }

    @Test("two gateways on two controllers of one Bumble link: one owns the peripheral; the owner is killed and the other takes over within 10 s",
          .enabled(if: pythonAvailable), .timeLimit(.minutes(20)))
    func ownerKilledOnBumbleLink() async throws {
        try BumbleVenv.check()
        let lab = Process()
        lab.executableURL = Self.interop.appendingPathComponent(".venv/bin/python")
        // The peripheral advertises again after each disconnection, as a real device does;
        // each subscription gets 20 values.
        lab.arguments = [Self.interop.appendingPathComponent("lab.py").path, "--role", "peripheral", "--devices", "1",
                         "--host-controllers", "2", "--readvertise", "--notify-count", "20", "--lifetime", String(hangGuard.components.seconds)]
        let input = Pipe(), output = Pipe()
        lab.standardInput = input
        lab.standardOutput = output
        lab.standardError = FileHandle.nullDevice
        try lab.run()
        defer {
            try? input.fileHandleForWriting.close()
            if lab.isRunning { lab.terminate() }
        }
        // lab.py runs one lab at a time: the ready line may wait for others to end.
        let line = await Self.firstLine(output.fileHandleForReading) ?? ""
        let ready = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        let ports = try #require(ready?["ports"] as? [Int], "lab.py: \(line)")
        let address = try #require((ready?["devices"] as? [[String: Any]])?.first?["address"] as? String)
        try #require(ports.count == 2)

        let broker = try MosquittoBroker.start()
        defer { broker.stop() }
        let observer = try BrokerRecorder(port: broker.port, filter: "attune/#", id: "bumble-fleet-observer")
        var gateways: [String: Gateway] = [:]
        for (id, port) in zip(["a", "b"], ports) {
            let configuration = try GatewayConfiguration(yaml: Array(Self.config(port: broker.port, id: id, address: address).utf8))
            var mqtt = try MQTTConfiguration(url: "mqtt://127.0.0.1:\(broker.port)", clientID: id)
            mqtt.will = Gateway.offlineWill(configuration)
            let transport = BluetoothTransport.h4(try H4Endpoint(parsing: "tcp:127.0.0.1:\(port)"))
            gateways[id] = Gateway(configuration: configuration, transports: ["bumble": transport],
                                   mqtt: try MQTTClient(configuration: mqtt))
        }
        for id in ["a", "b"] { await gateways[id]?.start() }

        let first = try #require(await observer.first(within: hangGuard) { $0.topic == "attune/dev/peer/value" })
        let ownerID = try #require(Self.via(first))
        let otherID = ownerID == "a" ? "b" : "a"
        let owner = try #require(gateways[ownerID]), other = try #require(gateways[otherID])
        // Both may claim at first (the lower id wins); the settled lease, renewed, names the owner.
        let record = await observer.first(within: hangGuard) { message in
            message.topic == "attune/dev/peer/owner" && (message.text ?? "").contains("\"gateway\":\"\(ownerID)\"")
                && !(message.text ?? "").contains("\"claim\"")
        }
        #expect(record != nil, "the owner's settled lease: \(observer.messages.filter { $0.topic == "attune/dev/peer/owner" }.map { $0.text ?? "" })")
        #expect(!observer.messages.contains { message in
            message.topic == "attune/dev/peer/owner" && (message.text ?? "").contains("\"gateway\":\"\(otherID)\"")
                && !(message.text ?? "").contains("\"claim\"")
        }, "the other gateway never held the lease while the owner lived")
        let before = observer.messages.filter { $0.topic == "attune/dev/peer/value" }
        #expect(before.allSatisfy { Self.via($0) == ownerID }, "only the owner connects: \(before.compactMap(Self.via))")

        // Killed: no DISCONNECT to the broker (its will goes out), its link dropped by its controller.
        let died = observer.messages.count
        let start = ContinuousClock.now
        await owner.abandon()
        let takenOver = await observer.first(after: died, within: hangGuard) { message in
            message.topic == "attune/dev/peer/value" && Self.via(message) == otherID
        }
        let elapsed = ContinuousClock.now - start
        print("Bumble lease takeover: \(elapsed) from the owner's death to the first value through \(otherID)")
        #expect(takenOver != nil, "the other gateway's values flow")
        #expect(elapsed < .seconds(10), "takeover within 10 s: \(elapsed)")
        await other.stop()
        await observer.client.close()
    }

    /// The first line of `handle`, read on a thread of its own; what follows is drained so
    /// the lab never blocks on a full pipe.
    static func firstLine(_ handle: FileHandle) async -> String? {
        await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            Thread.detachNewThread {
                var data = Data()
                while !data.contains(0x0A) {
                    let chunk = handle.availableData
                    if chunk.isEmpty {
                        continuation.resume(returning: nil)
                        return
                    }
                    data.append(chunk)
                }
                continuation.resume(returning: String(decoding: data.prefix { $0 != 0x0A }, as: UTF8.self))
                while !handle.availableData.isEmpty {}
            }
        }
    }
}
