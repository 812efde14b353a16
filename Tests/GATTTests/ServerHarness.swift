import ATT
@testable import GATT
import HexTestSupport

/// Drives a GATTServer with explicit time, one PDU at a time.
struct ServerHarness {
    var server: GATTServer
    var out = GATTServerOutput()
    var now = MonotonicTime.zero
    var events: [GATTServerEvent] = []

    init(_ database: AttributeDatabase, configuration: GATTServerConfiguration = .init(),
         connections: [ConnectionID] = [1]) {
        server = GATTServer(database: database, configuration: configuration)
        for c in connections { server.connect(c) }
    }

    /// Feeds one PDU; returns the hex of every PDU sent to `connection` as a result.
    @discardableResult
    mutating func send(_ hex: String, from connection: ConnectionID = 1) -> [String] {
        server.receive(bytes(hex)[...], from: connection, at: now, into: &out)
        return drain(connection)
    }

    mutating func drain(_ connection: ConnectionID = 1) -> [String] {
        let sent = out.pdus.filter { $0.connection == connection }.map { hexString(out.bytes(of: $0)) }
        events += out.events
        out.removeAll()
        return sent
    }

    mutating func tick(_ time: MonotonicTime) -> [String] {
        now = time
        server.tick(at: now, into: &out)
        return drain()
    }

    func handle(of uuid: UInt16) -> AttributeHandle {
        server.database.characteristics.first { $0.uuid == BluetoothUUID(uuid) }!.valueHandle
    }

    func cccd(of uuid: UInt16) -> AttributeHandle {
        server.database.characteristics.first { $0.uuid == BluetoothUUID(uuid) }!.clientConfigurationHandle!
    }
}

/// "0300" for handle 3.
func le(_ h: AttributeHandle) -> String { hexString([UInt8(h.rawValue & 0xff), UInt8(h.rawValue >> 8)]) }

/// A database with the GATT service and characteristics for every rule under test.
func testDatabase() -> AttributeDatabase {
    try! AttributeDatabase {
        ServiceDefinition.genericAttribute()
        Service(BluetoothUUID(0x180D), id: "main") {
            Characteristic(BluetoothUUID(0x2A37), properties: [.read, .notify], value: [1, 2, 3])
            Characteristic(BluetoothUUID(0x2A38), properties: [.read, .indicate], value: [4])
            Characteristic(BluetoothUUID(0x2A39), properties: [.read, .write], extendedProperties: [.reliableWrite], value: [0, 0])
            Characteristic(BluetoothUUID(0x2A3A), properties: [.read, .write], value: [9], maximumLength: 4)
            Characteristic(BluetoothUUID(0x2A3B), properties: [.read, .write], dynamic: true)
            Characteristic(BluetoothUUID(0x2A3C), properties: [.read, .write], permissions: .init(read: .encrypted, write: .authorized),
                           value: [7])
            Characteristic(BluetoothUUID(0x2A3D), properties: [.read, .writeWithoutResponse, .authenticatedSignedWrites],
                           value: [0])
            Characteristic(BluetoothUUID(0x2A3E), properties: [.read, .write], extendedProperties: [.reliableWrite],
                           value: [])
        }
    }
}
