import ATT

/// The JSON form of a cached ``DiscoveredDatabase``: UUIDs as text, handles as numbers,
/// values as lowercase hex, so the file is readable and diffable.
package struct CachedDatabase: Codable, Sendable {
    struct Service: Codable, Sendable {
        var uuid: String
        var start: UInt16
        var end: UInt16
        var primary: Bool
        var includes: [Include]
        var characteristics: [Characteristic]
    }
    struct Include: Codable, Sendable {
        var handle: UInt16
        var start: UInt16
        var end: UInt16
        var uuid: String
    }
    struct Characteristic: Codable, Sendable {
        var declaration: UInt16
        var value: UInt16
        var end: UInt16
        var properties: UInt8
        var uuid: String
        var extendedProperties: UInt16?
        var descriptors: [Descriptor]
    }
    struct Descriptor: Codable, Sendable {
        var handle: UInt16
        var uuid: String
    }

    var format = 1
    var peer: String
    var databaseHash: String?
    var serverSupportedFeatures: String?
    var services: [Service]

    package init(peer: PeerIdentity, database db: DiscoveredDatabase) {
        self.peer = peer.rawValue
        // "" for an empty value: hexString's human "(empty)" would not parse back.
        databaseHash = db.databaseHash.map { $0.isEmpty ? "" : hexString($0) }
        serverSupportedFeatures = db.serverSupportedFeatures.map { $0.isEmpty ? "" : hexString($0) }
        services = db.services.map { s in
            Service(uuid: s.uuid.description, start: s.handleRange.start.rawValue, end: s.handleRange.end.rawValue, primary: s.isPrimary,
                    includes: s.includes.map { Include(handle: $0.handle.rawValue, start: $0.serviceRange.start.rawValue,
                                                       end: $0.serviceRange.end.rawValue, uuid: $0.uuid.description) },
                    characteristics: s.characteristics.map { c in
                        Characteristic(declaration: c.declarationHandle.rawValue, value: c.valueHandle.rawValue, end: c.endHandle.rawValue,
                                       properties: c.properties.rawValue, uuid: c.uuid.description, extendedProperties: c.extendedProperties,
                                       descriptors: c.descriptors.map { Descriptor(handle: $0.handle.rawValue, uuid: $0.uuid.description) })
                    })
        }
    }

    /// The database, or nil when any UUID or value does not parse.
    package var database: DiscoveredDatabase? {
        var out: [DiscoveredService] = []
        for s in services {
            guard let uuid = BluetoothUUID(s.uuid) else { return nil }
            var service = DiscoveredService(uuid: uuid, handleRange: AttributeHandleRange(start: AttributeHandle(s.start), end: AttributeHandle(s.end)),
                                            isPrimary: s.primary)
            for i in s.includes {
                guard let u = BluetoothUUID(i.uuid) else { return nil }
                service.includes.append(DiscoveredInclude(handle: AttributeHandle(i.handle),
                                                          serviceRange: AttributeHandleRange(start: AttributeHandle(i.start), end: AttributeHandle(i.end)), uuid: u))
            }
            for c in s.characteristics {
                guard let u = BluetoothUUID(c.uuid) else { return nil }
                var descriptors: [DiscoveredDescriptor] = []
                for d in c.descriptors {
                    guard let du = BluetoothUUID(d.uuid) else { return nil }
                    descriptors.append(DiscoveredDescriptor(handle: AttributeHandle(d.handle), uuid: du))
                }
                service.characteristics.append(DiscoveredCharacteristic(
                    declarationHandle: AttributeHandle(c.declaration), properties: CharacteristicProperties(rawValue: c.properties),
                    valueHandle: AttributeHandle(c.value), uuid: u, endHandle: AttributeHandle(c.end), descriptors: descriptors,
                    extendedProperties: c.extendedProperties))
            }
            out.append(service)
        }
        let hash: [UInt8]?? = databaseHash.map { parseHex($0) }
        let features: [UInt8]?? = serverSupportedFeatures.map { parseHex($0) }
        if case .some(.none) = hash { return nil }
        if case .some(.none) = features { return nil }
        return DiscoveredDatabase(services: out, databaseHash: hash ?? nil, serverSupportedFeatures: features ?? nil)
    }
}

