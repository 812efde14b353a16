import Attune
import Testing
@testable import Gateway

/// A connect can come up for a device that no longer wants it there: its adapter went
/// down under it, or a reload replaced the device. (A device the pool moves away waits for
/// its old attempt's end, `AdapterPoolMoveTests`; before that, `GatewayPoolScaleTests` met
/// 13 of 200 devices holding two links.) Here the late link is made directly, so the
/// order is the test's.
@Suite(.serialized)
struct GatewayStaleLinkTests {
    @Test("a connect that comes up after the device stopped wanting it on that adapter is ended, and holds no slot",
          .timeLimit(.minutes(10)))
    func aLateLinkIsEnded() async throws {
        try await GatewayTestRig.run { rig in
            _ = try await rig.demo()
            // `never`: the gateway itself never connects it, so no link of its is wanted anywhere.
            let device = """
            {"name": "one", "address": "C0:00:00:00:00:01", "address_type": "random", "connect": "never"}
            """
            let gateway = try rig.gateway(rig.config(clientID: "attune-stale", devices: [device]))
            await gateway.start()
            let central = await gateway.adapters[0].central
            let peripheral = central.peripheral(address: BluetoothAddress(rawValue: 0xC0_00_00_00_00_01), type: .random)
            let events = peripheral.lifecycleEvents
            try await central.connect(peripheral)
            #expect(await peripheral.state == .connected)

            await gateway.linkUp("one", peripheral, on: 0)
            #expect(await gateway.devices["one"]?.handle == nil, "the scheduler was not told of a link nobody asked for")
            var ended = false
            for await event in events {
                if case .disconnected = event { ended = true; break }
            }
            #expect(ended, "the gateway ended the late link")
            #expect(await peripheral.state == .disconnected)
            await gateway.stop()
        }
    }
}
