import ATT

/// What a client knows of a server's attribute database: the discovered services, each
/// with its includes, characteristics and descriptors, sorted by handle; plus the
/// Database Hash and Server Supported Features when the server has them.
public struct DiscoveredDatabase: Hashable, Sendable {
    /// Services in handle order.
    public var services: [DiscoveredService]
    /// The Database Hash characteristic's value (Vol 3 Part G §7.3), when read.
    public var databaseHash: [UInt8]?
    /// The Server Supported Features value (Vol 3 Part G §7.4), when read.
    public var serverSupportedFeatures: [UInt8]?

    public init(services: [DiscoveredService] = [], databaseHash: [UInt8]? = nil, serverSupportedFeatures: [UInt8]? = nil) {
        self.services = services.sorted { $0.handleRange.start < $1.handleRange.start }
        self.databaseHash = databaseHash
        self.serverSupportedFeatures = serverSupportedFeatures
    }

    /// Every characteristic of every service, in handle order.
    public var characteristics: [DiscoveredCharacteristic] { services.flatMap(\.characteristics) }

    /// The characteristic whose value lives at `valueHandle`.
    public func characteristic(valueHandle: AttributeHandle) -> DiscoveredCharacteristic? {
        for s in services where s.handleRange.contains(valueHandle) || valueHandle > s.handleRange.end {
            if let c = s.characteristics.first(where: { $0.valueHandle == valueHandle }) { return c }
        }
        return nil
    }

    /// The first characteristic with this UUID.
    public func characteristic(uuid: BluetoothUUID) -> DiscoveredCharacteristic? {
        for s in services { if let c = s.characteristics.first(where: { $0.uuid == uuid }) { return c } }
        return nil
    }

    /// The index of the service whose range holds `handle`: a binary search over the
    /// sorted services, so placing each of n discovered attributes costs log n rather
    /// than a scan. Services of a valid database do not overlap, so the last service
    /// starting at or before `handle` is the only candidate.
    func serviceIndex(containing handle: AttributeHandle) -> Int? {
        var low = 0
        var high = services.count
        while low < high {
            let mid = (low + high) / 2
            if services[mid].handleRange.start <= handle { low = mid + 1 } else { high = mid }
        }
        guard low > 0, services[low - 1].handleRange.contains(handle) else { return nil }
        return low - 1
    }

    /// Removes the services that overlap `range` and returns them.
    public mutating func removeServices(overlapping range: AttributeHandleRange) -> [DiscoveredService] {
        let removed = services.filter { $0.handleRange.start <= range.end && range.start <= $0.handleRange.end }
        services.removeAll { $0.handleRange.start <= range.end && range.start <= $0.handleRange.end }
        return removed
    }

    /// Adds services, keeping handle order.
    public mutating func insert(_ new: [DiscoveredService]) {
        services.append(contentsOf: new)
        services.sort { $0.handleRange.start < $1.handleRange.start }
    }

    /// The database as an indented tree, one attribute a line.
    public var treeDescription: String {
        var lines: [String] = []
        for s in services {
            let name = s.uuid.name.map { " (\($0))" } ?? ""
            lines.append("\(s.isPrimary ? "Primary" : "Secondary") Service \(s.uuid)\(name) \(s.handleRange)")
            for i in s.includes { lines.append("  Include \(i.handle) → \(i.uuid) \(i.serviceRange)") }
            for c in s.characteristics {
                let cname = c.uuid.name.map { " (\($0))" } ?? ""
                lines.append("  Characteristic \(c.uuid)\(cname) value \(c.valueHandle) [\(c.properties)]")
                for d in c.descriptors {
                    let dname = d.uuid.name.map { " (\($0))" } ?? ""
                    lines.append("    Descriptor \(d.uuid)\(dname) \(d.handle)")
                }
            }
        }
        return lines.joined(separator: "\n")
    }
}
