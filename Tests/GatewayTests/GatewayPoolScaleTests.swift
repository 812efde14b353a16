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
        let state = Mutex<(byConnection: [UInt16: BluetoothAddress], live: [BluetoothAddress: Int],
                           peak: [BluetoothAddress: Int])>(([:], [:], [:]))
        func record(_ event: MemoryTapEvent) {
            state.withLock { s in
                switch event {
                case .connected(let connection, _, let peripheral):
                    s.byConnection[connection] = peripheral
                    s.live[peripheral, default: 0] += 1
                    s.peak[peripheral] = max(s.peak[peripheral, default: 0], s.live[peripheral]!)
                case .disconnected(let connection, _):
                    if let peripheral = s.byConnection.removeValue(forKey: connection) { s.live[peripheral, default: 0] -= 1 }
                case .pdu: break
                }
            }
        }
        var live: [BluetoothAddress: Int] { state.withLock { $0.live.filter { $0.value != 0 } } }
        /// The most links each peripheral ever had at once.
        var peak: [BluetoothAddress: Int] { state.withLock { $0.peak } }
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
          .timeLimit(.minutes(10)))
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
            // Taken before the gateway starts: a listener hears only what comes after it.
            let connections = managers.map(\.events)
            await gateway.start()
            // Every device has its central.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, events) in connections.enumerated() {
                    group.addTask {
                        for await event in events { if case .centralConnected = event { return } }
                        throw WaitFailed("device \(index): its events ended before a central connected")
                    }
                }
                group.addTask {
                    try await Task.sleep(for: hangGuard)
                    throw WaitFailed("every device has a central")
                }
                for _ in 0..<Self.devices { try await group.next() }
                group.cancelAll()
            }
            // A device's first central can be a late link: an attempt the gateway cancelled
            // on one adapter that the radio completed anyway, which the gateway then ends
            // and makes again through the adapter it chose. So the count is taken once
            // every device has a link on the radio again (an event of the tap, looked at
            // each millisecond), and the peak below is what shows no device ever had two.
            try await eventually("every device has a link on the radio") { links.live.count == Self.devices }
            let live = links.live
            #expect(live.count == Self.devices && live.values.allSatisfy { $0 == 1 },
                    "one link per device on the radio: \(live.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key): \($0.value)" })")
            let adaptersText = observer.messages.last { $0.topic == "attune/gateway/attune-scale/adapters" }?.text ?? ""
            #expect(!adaptersText.contains("\"slots_free\": -"), "\(adaptersText)")
            await gateway.stop()
            radio.setTap(nil)
            // No second link at any moment, including one still on its way when the count
            // above was taken: a second connect lands before the gateway has stopped, or not
            // at all (no sleep could wait for that).
            let doubled = links.peak.filter { $0.value > 1 }
            #expect(doubled.isEmpty, "peripherals that had two links at once: \(doubled)")
        }
    }
}
