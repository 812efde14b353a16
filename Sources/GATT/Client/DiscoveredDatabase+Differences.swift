import ATT

extension DiscoveredDatabase {
    /// Differences from `expected`, one line each; empty when they agree. Compares
    /// groups, UUIDs, characteristic declarations and descriptor handles. Include end
    /// handles are left out: a vector's tester reports one that differs from its database
    /// (0x000f for 0x0010 in ts_small_db).
    public func differences(from expected: DiscoveredDatabase) -> [String] {
        var out: [String] = []
        if services.count != expected.services.count {
            out.append("\(services.count) services discovered, \(expected.services.count) expected")
        }
        for (a, b) in zip(services, expected.services) {
            if a.uuid != b.uuid || a.handleRange != b.handleRange || a.isPrimary != b.isPrimary {
                out.append("\(a) differs from \(b)")
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
