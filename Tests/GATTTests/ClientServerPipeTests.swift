import ATT
import GATTTestSupport
import Testing
@testable import GATT

/// Our client against our server over the in-memory pipe: every procedure, at the
/// minimum ATT_MTU, a common one and the largest.
@Suite("Client against our server over the memory pipe")
struct ClientServerPipeTests {
    static let custom = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let secondary = BluetoothUUID("6E400010-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let longRead = BluetoothUUID("6E400002-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let longWrite = BluetoothUUID("6E400003-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let indicate = BluetoothUUID("6E400004-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let signed = BluetoothUUID("6E400005-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let longValue = (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) }
    static let csrk = Array(UInt8(0x10)...0x1F)

    static func database() -> AttributeDatabase {
        try! AttributeDatabase(services: [
            .genericAttribute(),
            ServiceDefinition(secondary, primary: false, id: "sec", characteristics: [
                CharacteristicDefinition(BluetoothUUID(0x2A19), properties: [.read], value: [99]),
            ]),
            ServiceDefinition(BluetoothUUID(0x180D), includes: ["sec"], characteristics: [
                CharacteristicDefinition(BluetoothUUID(0x2A37), properties: [.notify], value: [0, 60]),
                CharacteristicDefinition(BluetoothUUID(0x2A38), properties: [.read], value: [1]),
                CharacteristicDefinition(BluetoothUUID(0x2A39), properties: [.write, .writeWithoutResponse], value: [0], maximumLength: 1),
            ]),
            ServiceDefinition(custom, characteristics: [
                CharacteristicDefinition(longRead, properties: [.read], value: longValue),
                CharacteristicDefinition(longWrite, properties: [.read, .write], extendedProperties: [.reliableWrite],
                                         value: [], maximumLength: 512, descriptors: [.userDescription("long", writable: true)]),
                CharacteristicDefinition(indicate, properties: [.read, .indicate, .notify], value: [7]),
                CharacteristicDefinition(signed, properties: [.read, .authenticatedSignedWrites], value: [0, 0, 0]),
            ]),
        ])
    }

    static func pipe(mtu: UInt16) -> GATTMemoryPipe {
        var configuration = GATTServerConfiguration()
        configuration.rxMTU = 517
        var p = GATTMemoryPipe(server: GATTServer(database: database(), configuration: configuration),
                               clientConfiguration: GATTClientConfiguration(rxMTU: mtu, discoversOnStart: true,
                                                                            signingKey: SigningKey(csrk: csrk)))
        p.start()
        return p
    }

    func handle(_ p: GATTMemoryPipe, _ uuid: BluetoothUUID) -> AttributeHandle {
        p.client.client.database.characteristic(uuid: uuid)!.valueHandle
    }

    @Test(arguments: [23, 185, 517] as [UInt16])
    func discoveryMatchesTheServer(mtu: UInt16) {
        var p = Self.pipe(mtu: mtu)
        #expect(p.client.mtu == Int(mtu))
        let events = p.takeClientEvents()
        guard case let .ready(db)? = events.last else { Issue.record("not ready: \(events)"); return }
        let expected = DiscoveredDatabase(expectedFrom: p.server.database)
        #expect(db.differences(from: expected) == [])
        #expect(db.databaseHash == p.server.database.hash)
        #expect(db.services.first { !$0.isPrimary }?.uuid == Self.secondary)
        #expect(db.services.first { $0.uuid == BluetoothUUID(0x180D) }?.includes.first?.uuid == Self.secondary)
        #expect(db.characteristic(uuid: Self.longWrite)?.extendedProperties == 1)
        // Robust caching: the client said it supports it, so the server tracks it.
        #expect(p.server.isChangeAware(p.connection))

        // The individual discovery procedures agree with the bootstrap.
        #expect(p.perform(.discoverAllPrimaryServices()).success == .services(db.services.filter(\.isPrimary).map {
            DiscoveredService(uuid: $0.uuid, handleRange: $0.handleRange)
        }))
        let hr = db.services.first { $0.uuid == BluetoothUUID(0x180D) }!
        #expect(p.perform(.discoverPrimaryServices(BluetoothUUID(0x180D))).success == .services([DiscoveredService(uuid: 0x180D, handleRange: hr.handleRange)]))
        #expect(p.perform(.discoverPrimaryServices(Self.custom)).success?.servicesCount == 1)
        #expect(p.perform(.findIncludedServices(in: hr.handleRange)).success == .includes(hr.includes))
        let chars = hr.characteristics.map { var c = $0; c.descriptors = []; return c }
        #expect(p.perform(.discoverAllCharacteristics(in: hr.handleRange)).success == .characteristics(chars))
        #expect(p.perform(.discoverCharacteristics(BluetoothUUID(0x2A38), in: hr.handleRange)).success == .characteristics([chars[1]]))
        let m = hr.characteristics[0]
        #expect(p.perform(.discoverDescriptors(in: m.descriptorRange!)).success == .descriptors(m.descriptors))
    }

    @Test(arguments: [23, 185, 517] as [UInt16])
    func readsAndWrites(mtu: UInt16) {
        var p = Self.pipe(mtu: mtu)
        let location = handle(p, BluetoothUUID(0x2A38))
        #expect(p.perform(.readValue(location)).success == .value([1]))
        #expect(p.perform(.readUsingCharacteristicUUID(BluetoothUUID(0x2A38))).success == .handleValues([HandleValue(handle: location, value: [1])]))
        let long = handle(p, Self.longRead)
        #expect(p.perform(.readLongValue(long)).success == .value(Self.longValue))
        #expect(p.perform(.readLongValue(long, offset: 100)).success == .value(Array(Self.longValue[100...])))
        let indicateHandle = handle(p, Self.indicate)
        #expect(p.perform(.readMultiple([location, indicateHandle])).success == .value([1, 7]))
        #expect(p.perform(.readMultipleVariable([location, long, indicateHandle])).success == .values([[1], Self.longValue, [7]]))

        let control = handle(p, BluetoothUUID(0x2A39))
        #expect(p.perform(.writeValue(control, [5])).success == .done)
        #expect(p.server.database[control]?.value == [5])
        #expect(p.perform(.writeWithoutResponse(control, [6])).success == .done)
        #expect(p.server.database[control]?.value == [6])

        let writable = handle(p, Self.longWrite)
        let big = (0..<512).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        #expect(p.perform(.writeLongValue(writable, big)).success == .done)
        #expect(p.perform(.readLongValue(writable)).success == .value(big))
        let reliable = Array(big.prefix(100).reversed())
        #expect(p.perform(.reliableWrite([PreparedWrite(handle: writable, value: reliable)])).success == .done)
        #expect(p.perform(.readLongValue(writable)).success == .value(reliable))
        let userDescription = p.client.client.database.characteristic(uuid: Self.longWrite)!.descriptors.first { $0.uuid == BluetoothUUID(0x2901) }!.handle
        #expect(p.perform(.writeValue(userDescription, Array("renamed".utf8))).success == .done)
        #expect(p.perform(.readValue(userDescription)).success == .value(Array("renamed".utf8)))
        #expect(p.perform(.readValue(0x7FFF)).failure?.attErrorCode == .invalidHandle)
        #expect(p.perform(.writeValue(location, [9])).failure?.attErrorCode == .writeNotPermitted)
    }

    @Test(arguments: [23, 185, 517] as [UInt16])
    func signedWrite(mtu: UInt16) {
        var p = Self.pipe(mtu: mtu)
        p.server.setSigningKey(Self.csrk, authenticated: false, for: p.connection)
        let h = handle(p, Self.signed)
        #expect(p.perform(.signedWriteWithoutResponse(h, [1, 2, 3])).success == .done)
        #expect(p.server.database[h]?.value == [1, 2, 3])
        #expect(p.perform(.signedWriteWithoutResponse(h, [4, 5, 6])).success == .done)
        #expect(p.server.database[h]?.value == [4, 5, 6])
    }

    @Test(arguments: [23, 185, 517] as [UInt16])
    func notificationsAndIndications(mtu: UInt16) {
        var p = Self.pipe(mtu: mtu)
        _ = p.takeClientEvents()
        let measurement = handle(p, BluetoothUUID(0x2A37))
        let indicate = handle(p, Self.indicate)
        #expect(p.perform(.subscribe(valueHandle: measurement)).success == .done)
        #expect(p.server.clientConfiguration(of: p.connection, characteristic: measurement) == .notification)
        #expect(p.perform(.subscribe(valueHandle: indicate, .indicate)).success == .done)
        #expect(p.server.clientConfiguration(of: p.connection, characteristic: indicate) == .indication)

        let value = Array(repeating: UInt8(0x42), count: Int(mtu) - 3)
        p.withServer { server, id, now, out in _ = try? server.notify(value, characteristic: measurement, into: &out) }
        p.withServer { server, id, now, out in _ = try? server.indicate([1, 2], characteristic: indicate, at: now, into: &out) }
        p.withServer { server, id, now, out in
            try? server.notifyMultiple([(measurement, [1]), (indicate, [2])], to: [id], into: &out)
        }
        let events = p.takeClientEvents()
        #expect(events.contains(.notification(measurement, value[...])))
        #expect(events.contains(.indication(indicate, [1, 2][...])))
        #expect(events.contains(.notification(measurement, [1][...])))
        #expect(events.contains(.notification(indicate, [2][...])))
        #expect(p.takeServerEvents().contains { if case .indicationCompleted(_, _, .confirmed) = $0 { true } else { false } })

        #expect(p.perform(.unsubscribe(valueHandle: measurement)).success == .done)
        #expect(p.server.clientConfiguration(of: p.connection, characteristic: measurement) == [])
    }

    @Test func serviceChangedFromTheServerIsFollowed() throws {
        var p = Self.pipe(mtu: 185)
        _ = p.takeClientEvents()
        let custom = p.client.client.database.services.first { $0.uuid == Self.custom }!
        try p.withServer { server, id, now, out in
            try server.modifyDatabase(at: now, into: &out) { db throws(DatabaseError) in
                try db.removeService(at: custom.handleRange.start)
            }
        }
        let events = p.takeClientEvents()
        let changed = events.compactMap { e -> [DiscoveredService]? in
            if case let .servicesChanged(invalidated, _) = e { return invalidated }
            return nil
        }
        #expect(changed.flatMap { $0.map(\.uuid) }.contains(Self.custom))
        #expect(!p.client.client.database.services.contains { $0.uuid == Self.custom })
        #expect(p.client.client.database.differences(from: DiscoveredDatabase(expectedFrom: p.server.database)) == [])
    }
}

@Suite("Client security retry against our server")
struct ClientSecurityPipeTests {
    static func database() -> AttributeDatabase {
        try! AttributeDatabase(services: [
            ServiceDefinition(BluetoothUUID(0x180F), characteristics: [
                CharacteristicDefinition(BluetoothUUID(0x2A19), properties: [.read],
                                         permissions: AttributePermissions(read: .encrypted, write: .denied), value: [77]),
            ]),
        ])
    }

    @Test func raisesSecurityOnceAndRetries() {
        var p = GATTMemoryPipe(server: GATTServer(database: Self.database()),
                               clientConfiguration: GATTClientConfiguration(canRaiseSecurity: true, discoversOnStart: true))
        p.start()
        let h = p.client.client.database.characteristic(uuid: BluetoothUUID(0x2A19))!.valueHandle
        #expect(p.perform(.readValue(h)).success == .value([77]))
        #expect(p.securityRaises == 1)
    }

    @Test func reportsInsufficientEncryptionWhenItCannotRaise() {
        var p = GATTMemoryPipe(server: GATTServer(database: Self.database()),
                               clientConfiguration: GATTClientConfiguration(discoversOnStart: true))
        p.start()
        let h = p.client.client.database.characteristic(uuid: BluetoothUUID(0x2A19))!.valueHandle
        #expect(p.perform(.readValue(h)).failure?.attErrorCode == .insufficientEncryption)
        #expect(p.securityRaises == 0)
    }
}

extension GATTClientResponse {
    var servicesCount: Int? { if case let .services(s) = self { return s.count }; return nil }
}
