import Attune
import Foundation
import Gateway
import GatewayConfig
import MQTTClient
import MQTTTestSupport
import Synchronization
import Testing

/// Many devices over many adapters: every device ends with exactly one link, on the
/// radio itself (not only in the gateway's books), and every adapter's slots hold.
@Suite(.serialized)
struct GatewayPoolScaleTests {
    /// Live links on the radio, by peripheral address.
    final class LinkCounter: Sendable {
        let state = Mutex<(byConnection: [UInt16: BluetoothAddress], live: [BluetoothAddress: Int])>(([:], [:]))
        func record(_ event: MemoryTapEvent) {
            state.withLock { s in
                switch event {
                case .connected(let connection, _, let peripheral):
                    s.byConnection[connection] = peripheral
                    s.live[peripheral, default: 0] += 1
                case .disconnected(let connection, _):
                    if let peripheral = s.byConnection.removeValue(forKey: connection) { s.live[peripheral, default: 0] -= 1 }
                case .pdu: break
                }
            }
        }
        var live: [BluetoothAddress: Int] { state.withLock { $0.live.filter { $0.value != 0 } } }
    }

    static let adapters = 8
    static let slots = 30
    static let devices = 200

    static func address(_ index: Int) -> BluetoothAddress { BluetoothAddress(rawValue: 0xC1_00_00_00_00_00 | UInt64(index + 1)) }

    static func config(on rig: GatewayTestRig) -> String {
        let deviceList = (0..<devices).map { index in
            "{\"name\": \"d\(index)\", \"address\": \"\(address(index))\", \"address_type\": \"random\", \"connect\": \"keep\", "
                + "\"gatt\": [{\"characteristic\": \"2a37\", \"notify\": true, \"topic\": \"value\", \"decode\": \"hex\"}]}"
        }
        return rig.config(clientID: "attune-scale", adapters: (0..<adapters).map { ("m\($0)", slots) }, devices: deviceList)
    }

    @Test("200 keep devices over 8 thirty-slot adapters: each device has one link on the radio, no adapter over its slots",
          .timeLimit(.minutes(3)))
    func oneLinkPerDevice() async throws {
        // Real advertisers repeat: 200 heard at once overflow each scan's 1024-report stream,
        // and the ones dropped are heard at a later advertising event.
        try await GatewayTestRig.run(advertisingInterval: .seconds(1)) { rig in
            let radio = rig.radio
            let links = LinkCounter()
            radio.setTap { links.record($0) }
            var managers: [PeripheralManager] = []
            for index in 0..<Self.devices {
                radio.assignNextAddress(Self.address(index))
                let manager = try PeripheralManager(transport: .memory(radio), name: "d\(index)")
                // No limit of centrals: a second connect from another adapter would succeed,
                // so the one link per device counted below is the gateway's doing.
                _ = try await manager.add(ServiceDefinition(BluetoothUUID(0x180D), characteristics: [
                    CharacteristicDefinition(BluetoothUUID(0x2A37), properties: [.notify]),
                ]))
                try await manager.startAdvertising(localName: "d\(index)", serviceUUIDs: [BluetoothUUID(0x180D)])
                managers.append(manager)
            }
            let observer = try rig.recorder("attune/#", id: "scale-observer")
            let gateway = try rig.gateway(Self.config(on: rig), adapters: (0..<Self.adapters).map { "m\($0)" })
            await gateway.start()
            // Every device subscribed on its peripheral.
            var subscribed = 0
            let deadline = ContinuousClock.now + .seconds(90)
            while ContinuousClock.now < deadline {
                subscribed = 0
                for manager in managers where !(await manager.connectedCentrals.isEmpty) { subscribed += 1 }
                if subscribed == Self.devices { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(subscribed == Self.devices, "every device has a central")
            // Let any second connect that was on its way land before counting.
            let settled = observer.messages.count
            _ = await observer.first(after: settled, within: .seconds(2)) { $0.topic == "never" }
            let live = links.live
            #expect(live.count == Self.devices && live.values.allSatisfy { $0 == 1 },
                    "one link per device on the radio: \(live.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key): \($0.value)" })")
            let adaptersText = observer.messages.last { $0.topic == "attune/gateway/attune-scale/adapters" }?.text ?? ""
            #expect(!adaptersText.contains("\"slots_free\": -"), "\(adaptersText)")
            await gateway.stop()
            radio.setTap(nil)
        }
    }
}
