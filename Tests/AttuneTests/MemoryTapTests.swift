import Capture
import Foundation
import Synchronization
import Testing
@testable import Attune
@testable import Transport

/// The tap on a MemoryRadio and the btsnoop recorder built on it.
@Suite("MemoryRadio tap and MemorySnoop")
struct MemoryTapTests {
    @Test(.timeLimit(.minutes(10)))
    func tapSeesTheWholeLinkInOrder() async throws {
        let radio = MemoryRadio()
        let seen = Mutex<[MemoryTapEvent]>([])
        radio.setTap { event in seen.withLock { $0.append(event) } }
        _ = try await DemoPeripheral.start(on: .memory(radio))
        let central = CentralManager(transport: .memory(radio))
        // The demo's manager was the radio's first controller.
        let demoAddress = BluetoothAddress(rawValue: 0xC0_00_00_00_00_01)
        let peripheral = central.peripheral(address: demoAddress, type: .random)
        try await within("connect") { try await central.connect(peripheral, preferredMTU: 100) }
        let value = try await within("long read") {
            let service = try await peripheral.discoverServices([DemoPeripheral.customService])[0]
            let characteristic = try await peripheral.discoverCharacteristics([DemoPeripheral.longReadCharacteristic],
                                                                             for: service)[0]
            return try await peripheral.readValue(for: characteristic)
        }
        #expect(value == DemoPeripheral.longReadValue)
        await central.cancelConnection(peripheral)
        radio.setTap(nil)

        let events = seen.withLock { $0 }
        guard case let .connected(connection, centralAddress, peripheralAddress)? = events.first else {
            Issue.record("the first event is the connection: \(events.first.map { "\($0)" } ?? "none")")
            return
        }
        #expect(connection == 1)
        #expect(peripheralAddress == demoAddress)
        #expect(centralAddress != peripheralAddress)
        #expect(events.last == .disconnected(connection: 1, reason: HCIStatus.connectionTerminatedByLocalHost), "closed by us, reported once")
        let pdus = events.compactMap { e -> (Bool, [UInt8])? in
            if case let .pdu(_, fromCentral, bytes) = e { return (fromCentral, bytes) }
            return nil
        }
        #expect(pdus.first.map { $0.0 && $0.1 == [0x02, 100, 0] } == true, "Exchange MTU Request first, from the central")
        #expect(pdus.dropFirst().first.map { !$0.0 && $0.1.first == 0x03 } == true)
        // 300 bytes at ATT_MTU 100: a Read Request, then Read Blobs of 99 bytes.
        #expect(pdus.filter { $0.0 && $0.1.first == 0x0C }.count == 3)
    }

    @Test func snoopRecordsFollowHCIFraming() throws {
        let connected = MemorySnoop.records(for: .connected(connection: 7, central: BluetoothAddress(rawValue: 2),
                                                            peripheral: BluetoothAddress(rawValue: 0xC0_00_00_00_00_01)),
                                            at: 1_000_000)
        #expect(connected.count == 1)
        #expect(connected[0].kind == .hci(.event) && connected[0].direction == .received)
        #expect(Array(connected[0].payload.prefix(8)) == [0x3E, 19, 0x01, 0x00, 0x07, 0x00, 0x00, 0x01])

        let pdu = [UInt8](repeating: 0xAB, count: 400)
        let fragments = MemorySnoop.records(for: .pdu(connection: 7, fromCentral: false, pdu), at: 1_000_001)
        #expect(fragments.count == 2, "404 bytes of L2CAP in packets of at most 251")
        #expect(fragments.allSatisfy { $0.direction == .received && $0.kind == .hci(.aclData) })
        #expect(Array(fragments[0].payload.prefix(8)) == [0x07, 0x20, 251, 0, 0x90, 0x01, 0x04, 0x00])
        #expect(Array(fragments[1].payload.prefix(4)) == [0x07, 0x10, 153, 0])

        let down = MemorySnoop.records(for: .disconnected(connection: 7, reason: HCIStatus.remoteUserTerminatedConnection), at: 1_000_002)
        #expect(Array(down[0].payload) == [0x05, 4, 0x00, 0x07, 0x00, 0x13])
    }

    @Test func snoopFileReadsBack() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("snoop-\(UUID().uuidString).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let snoop = try MemorySnoop(path: path)
        snoop.record(.connected(connection: 1, central: BluetoothAddress(rawValue: 2), peripheral: BluetoothAddress(rawValue: 1)))
        snoop.record(.pdu(connection: 1, fromCentral: true, [0x0A, 0x03, 0x00]))
        snoop.record(.pdu(connection: 1, fromCentral: false, [0x0B, 0x41]))
        snoop.record(.disconnected(connection: 1, reason: HCIStatus.connectionTerminatedByLocalHost))
        try snoop.finish()
        snoop.record(.pdu(connection: 1, fromCentral: true, [0x0A, 0x03, 0x00]))   // ignored after finish

        var reader = try CaptureReader(path: path)
        var decoder = CaptureDecoder()
        var att: [[UInt8]] = []
        while let record = try reader.next() {
            var displaced: CaptureEvent?
            if case let .frame(frame)? = decoder.process(record, dropped: &displaced), frame.channel == .attribute {
                att.append(Array(frame.payload))
            }
        }
        #expect(reader.recordCount == 4)
        #expect(att == [[0x0A, 0x03, 0x00], [0x0B, 0x41]])
    }
}
