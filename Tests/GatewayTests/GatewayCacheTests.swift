import Attune
import Foundation
import Gateway
import GatewayConfig
import MQTTClient
import MQTTTestSupport
import Synchronization
import Testing

/// The GATT cache outlives the gateway: a restarted gateway with the same store checks
/// the peer's Database Hash instead of discovering its services again.
@Suite(.serialized)
struct GatewayCacheTests {
    /// ATT requests the central sent, by opcode.
    final class RequestCounter: Sendable {
        let counts = Mutex<[UInt8: Int]>([:])
        func record(_ event: MemoryTapEvent) {
            if case .pdu(_, true, let pdu) = event, let opcode = pdu.first { counts.withLock { $0[opcode, default: 0] += 1 } }
        }
        func take() -> [UInt8: Int] { counts.withLock { let c = $0; $0 = [:]; return c } }
        func count(_ opcode: UInt8) -> Int { counts.withLock { $0[opcode, default: 0] } }
    }

    @Test("a restarted gateway validates the stored GATT cache by the Database Hash, with no service discovery",
          .timeLimit(.minutes(10)))
    func restartUsesTheStoredCache() async throws {
        try await GatewayTestRig.run { rig in
            let requests = RequestCounter()
            rig.radio.setTap { requests.record($0) }
            _ = try await rig.demo()
            let configuration = try GatewayConfiguration(yaml: Array(GatewayMemoryTests.config(on: rig).utf8))
            let observer = try rig.recorder("attune/dev/demo/heart_rate")
            let store = InMemoryStore()

            var firstRun: [UInt8: Int] = [:]
            for run in 1...2 {
                let gateway = try rig.gateway(configuration, store: store)
                await gateway.start()
                // This run's own link is set up once its CCCD write (0x12 Write Request) crossed
                // the radio: a value published late by the run before cannot stand in for it.
                try? await eventually("this run's CCCD write") { requests.count(0x12) > 0 }
                #expect(requests.count(0x12) > 0, "run \(run): the gateway subscribed on its link")
                let before = observer.messages.count
                let value = await observer.first(after: before, within: hangGuard) { _ in true }
                #expect(value != nil, "run \(run): values flow")
                await gateway.stop()
                let seen = requests.take()
                if run == 1 {
                    firstRun = seen
                    // 0x10 Read By Group Type Request: primary service discovery.
                    #expect(seen[0x10, default: 0] > 0, "the first run discovers: \(seen)")
                } else {
                    #expect(seen[0x10, default: 0] == 0, "the second run discovers no services: \(seen) (first: \(firstRun))")
                    // 0x08 Read By Type Request: the Database Hash read that validates the cache.
                    #expect(seen[0x08, default: 0] >= 1, "the hash is read: \(seen)")
                    #expect(seen.values.reduce(0, +) < firstRun.values.reduce(0, +), "fewer requests than the first run")
                }
            }
            rig.radio.setTap(nil)
        }
    }
}
