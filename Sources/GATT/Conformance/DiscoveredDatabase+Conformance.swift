import ATT

extension DiscoveredDatabase {
    /// What a client should discover from one database of `gatt-dbs.json` (its
    /// `services` summary: groups, includes, characteristics, descriptors).
    init?(conformanceDatabase db: ConformanceJSON) {
        var services: [DiscoveredService] = []
        for s in db["services"]?.array ?? [] {
            guard let start = s["start_handle"]?.int, let end = s["end_handle"]?.int,
                  let uuid = s["uuid"]?.string.flatMap(BluetoothUUID.init) else { return nil }
            var service = DiscoveredService(uuid: uuid, handleRange: AttributeHandleRange(start: AttributeHandle(UInt16(start)), end: AttributeHandle(UInt16(end))),
                                            isPrimary: s["primary"]?.bool ?? true)
            for i in s["includes"]?.array ?? [] {
                guard let h = i["handle"]?.int, let a = i["included_start"]?.int, let b = i["included_end"]?.int,
                      let u = i["included_uuid"]?.string.flatMap(BluetoothUUID.init) else { return nil }
                service.includes.append(DiscoveredInclude(handle: AttributeHandle(UInt16(h)),
                                                          serviceRange: AttributeHandleRange(start: AttributeHandle(UInt16(a)), end: AttributeHandle(UInt16(b))), uuid: u))
            }
            for c in s["characteristics"]?.array ?? [] {
                guard let d = c["declaration_handle"]?.int, let v = c["value_handle"]?.int, let e = c["end_handle"]?.int,
                      let p = c["properties"]?.int, let u = c["uuid"]?.string.flatMap(BluetoothUUID.init) else { return nil }
                var ch = DiscoveredCharacteristic(declarationHandle: AttributeHandle(UInt16(d)), properties: CharacteristicProperties(rawValue: UInt8(p)),
                                                  valueHandle: AttributeHandle(UInt16(v)), uuid: u, endHandle: AttributeHandle(UInt16(e)))
                for desc in c["descriptors"]?.array ?? [] {
                    guard let h = desc["handle"]?.int, let du = desc["uuid"]?.string.flatMap(BluetoothUUID.init) else { return nil }
                    ch.descriptors.append(DiscoveredDescriptor(handle: AttributeHandle(UInt16(h)), uuid: du))
                }
                ch.extendedProperties = c["extended_properties"]?.int.map { UInt16($0) }
                service.characteristics.append(ch)
            }
            services.append(service)
        }
        self.init(services: services)
    }

    /// Differences between what was discovered and what the database holds, one line
    /// each; empty when they agree. Compares groups, UUIDs, characteristic declarations
    /// and descriptor handles; include end handles are left out because the vectors'
    /// tester reports one that differs from the database (0x000f for 0x0010).
    func differences(from expected: DiscoveredDatabase) -> [String] {
        var out: [String] = []
        if services.count != expected.services.count {
            out.append("\(services.count) services discovered, \(expected.services.count) expected")
        }
        for (a, b) in zip(services, expected.services) {
            if a.uuid != b.uuid || a.handleRange != b.handleRange || a.isPrimary != b.isPrimary {
                out.append("service \(a) differs from \(b)")
            }
            if a.includes.map({ [$0.handle.rawValue, $0.serviceRange.start.rawValue] }) != b.includes.map({ [$0.handle.rawValue, $0.serviceRange.start.rawValue] })
                || a.includes.map(\.uuid) != b.includes.map(\.uuid) {
                out.append("includes of \(a.uuid) differ: \(a.includes) vs \(b.includes)")
            }
            if a.characteristics.count != b.characteristics.count {
                out.append("\(a.characteristics.count) characteristics in \(a.uuid), \(b.characteristics.count) expected")
            }
            for (x, y) in zip(a.characteristics, b.characteristics) {
                if x.declarationHandle != y.declarationHandle || x.valueHandle != y.valueHandle || x.uuid != y.uuid
                    || x.properties != y.properties || x.endHandle != y.endHandle {
                    out.append("\(x) (end \(x.endHandle)) differs from \(y) (end \(y.endHandle))")
                }
                if x.descriptors != y.descriptors { out.append("descriptors of \(x) differ: \(x.descriptors) vs \(y.descriptors)") }
            }
        }
        return out
    }
}
