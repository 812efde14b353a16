import BluetoothCore
import GATT

/// A database that meets every precondition of the server catalog at the tester's
/// ATT_MTU of 64: readable and unreadable values, writable and read-only ones, a value
/// and a descriptor longer than one response, Write Without Response, Reliable Write and
/// Writable Auxiliaries, a read-only and a write-only descriptor,
/// notify and indicate with CCCDs, a primary service that includes a secondary one, and an
/// empty value.
enum ConformanceTestDatabase {
    static let longValue: [UInt8] = (0..<100).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }

    static func make() throws -> AttributeDatabase {
        try AttributeDatabase(services: [
            ServiceDefinition(BluetoothUUID(0x180F), characteristics: [
                CharacteristicDefinition(BluetoothUUID(0x2A19), properties: [.read, .notify], value: [100]),
            ]),
            ServiceDefinition(BluetoothUUID(0xFFE0), characteristics: [
                CharacteristicDefinition(BluetoothUUID(0xFFE1), properties: [.read, .write], value: Array("hello".utf8)),
                CharacteristicDefinition(BluetoothUUID(0xFFE2), properties: [.write], value: [0x00]),
                CharacteristicDefinition(BluetoothUUID(0xFFE3), properties: [.read], value: longValue),
                CharacteristicDefinition(BluetoothUUID(0xFFE4), properties: [.read, .writeWithoutResponse], value: [1, 2]),
                CharacteristicDefinition(BluetoothUUID(0xFFE5), properties: [.read, .write],
                                         extendedProperties: [.reliableWrite, .writableAuxiliaries],
                                         value: Array(0..<10), descriptors: [
                                            .userDescription(String(repeating: "a long user description ", count: 4),
                                                             writable: true),
                                            .presentationFormat(format: 0x04, unit: 0x2700),
                                            DescriptorDefinition(BluetoothUUID(0xFFF9), permissions: .writeOnly, value: [0]),
                                         ]),
                CharacteristicDefinition(BluetoothUUID(0xFFE8), properties: [.read, .write], extendedProperties: [.reliableWrite],
                                         value: Array(20..<80)),
                CharacteristicDefinition(BluetoothUUID(0xFFE6), properties: [.indicate], value: [0]),
                CharacteristicDefinition(BluetoothUUID(0xFFE7), properties: [.notify], value: [0]),
            ]),
            ServiceDefinition(BluetoothUUID("A77E0006-5A1D-4E6B-9C3F-7B2E0D6C4A10")!, primary: false, id: "secondary",
                              characteristics: [
                                CharacteristicDefinition(BluetoothUUID("A77E0007-5A1D-4E6B-9C3F-7B2E0D6C4A10")!,
                                                         properties: [.read], value: [0x5E]),
                              ]),
            ServiceDefinition(BluetoothUUID("A77E0005-5A1D-4E6B-9C3F-7B2E0D6C4A10")!, includes: ["secondary"]),
            // An empty value, for the Read Blob robustness probe.
            ServiceDefinition(BluetoothUUID(0xFFD0), characteristics: [
                CharacteristicDefinition(BluetoothUUID(0xFFD1), properties: [.read], value: []),
            ]),
        ])
    }
}
