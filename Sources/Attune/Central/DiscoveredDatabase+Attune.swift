extension Service {
    /// The public value of a service the client engine discovered.
    init(_ s: DiscoveredService) {
        self.init(uuid: s.uuid, isPrimary: s.isPrimary, startHandle: s.handleRange.start, endHandle: s.handleRange.end,
                  includedServices: s.includes.map(IncludedService.init),
                  characteristics: s.characteristics.map { Characteristic($0, service: s.handleRange.start) })
    }

    var handleRange: AttributeHandleRange { AttributeHandleRange(start: startHandle, end: endHandle) }
}

extension IncludedService {
    /// The public value of an include declaration the client engine discovered.
    init(_ i: DiscoveredInclude) {
        self.init(declarationHandle: i.handle, uuid: i.uuid, startHandle: i.serviceRange.start,
                  endHandle: i.serviceRange.end)
    }

    /// The engine's value, to seed it from the cache.
    var discovered: DiscoveredInclude {
        DiscoveredInclude(handle: declarationHandle, serviceRange: AttributeHandleRange(start: startHandle, end: endHandle),
                          uuid: uuid)
    }
}

extension Characteristic {
    init(_ c: DiscoveredCharacteristic, service: AttributeHandle) {
        self.init(uuid: c.uuid, properties: c.properties, declarationHandle: c.declarationHandle,
                  valueHandle: c.valueHandle, endHandle: c.endHandle, serviceHandle: service,
                  descriptors: c.descriptors.map { Descriptor(uuid: $0.uuid, handle: $0.handle,
                                                              characteristicHandle: c.valueHandle) })
    }

    /// The handles after the value that may hold descriptors.
    var descriptorRange: AttributeHandleRange? {
        guard let first = valueHandle.successor, first <= endHandle else { return nil }
        return AttributeHandleRange(start: first, end: endHandle)
    }
}

extension GATTCache {
    /// The cache as a discovered database, to seed a client engine after a cache hit.
    var discoveredDatabase: DiscoveredDatabase {
        DiscoveredDatabase(services: services.map { s in
            DiscoveredService(
                uuid: s.uuid, handleRange: s.handleRange, isPrimary: s.isPrimary,
                includes: (s.includedServices ?? []).map(\.discovered),
                characteristics: (s.characteristics ?? []).map { c in
                    DiscoveredCharacteristic(declarationHandle: c.declarationHandle, properties: c.properties,
                                             valueHandle: c.valueHandle, uuid: c.uuid, endHandle: c.endHandle,
                                             descriptors: (c.descriptors ?? []).map {
                                                 DiscoveredDescriptor(handle: $0.handle, uuid: $0.uuid)
                                             })
                })
        }, databaseHash: databaseHash)
    }

    init(_ database: DiscoveredDatabase) {
        self.init(services: database.services.map(Service.init), databaseHash: database.databaseHash)
    }
}
