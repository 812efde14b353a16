import ATT

extension DiscoveredDatabase {
    /// What a client should discover from a server's database: its groups, includes,
    /// characteristics and descriptors (and the Extended Properties values).
    public init(expectedFrom db: AttributeDatabase) {
        var services: [DiscoveredService] = []
        for record in db.services {
            var service = DiscoveredService(uuid: record.uuid, handleRange: record.range, isPrimary: record.isPrimary)
            for attribute in db.attributes where record.range.contains(attribute.handle) && attribute.type == GATTAttributeType.include {
                let v = attribute.value
                guard v.count >= 4 else { continue }
                let start = AttributeHandle(UInt16(v[0]) | UInt16(v[1]) << 8)
                let end = AttributeHandle(UInt16(v[2]) | UInt16(v[3]) << 8)
                let uuid = v.count == 6 ? BluetoothUUID(littleEndian: v[4...]) : db[start].flatMap { BluetoothUUID(littleEndian: $0.value[...]) }
                service.includes.append(DiscoveredInclude(handle: attribute.handle, serviceRange: AttributeHandleRange(start: start, end: end),
                                                          uuid: uuid ?? BluetoothUUID(0)))
            }
            for c in db.characteristics where record.range.contains(c.declarationHandle) {
                var ch = DiscoveredCharacteristic(declarationHandle: c.declarationHandle, properties: c.properties,
                                                  valueHandle: c.valueHandle, uuid: c.uuid, endHandle: c.endHandle)
                for attribute in db.attributes where attribute.handle > c.valueHandle && attribute.handle <= c.endHandle {
                    ch.descriptors.append(DiscoveredDescriptor(handle: attribute.handle, uuid: attribute.type))
                    if attribute.type == GATTAttributeType.characteristicExtendedProperties, attribute.value.count >= 2 {
                        ch.extendedProperties = UInt16(attribute.value[0]) | UInt16(attribute.value[1]) << 8
                    }
                }
                service.characteristics.append(ch)
            }
            services.append(service)
        }
        self.init(services: services)
    }
}
