import ATT

/// Turns service definitions into attributes. Explicit handles (a service's or a
/// characteristic's) are honoured, or refused with what is in the way; a service without
/// one goes to the first free handles after the service before it, past any range
/// already taken.
enum HandleAllocator {
    /// Handles in use before these services are placed, and what uses them (for errors).
    struct Taken {
        var range: ClosedRange<UInt32>
        var what: String
    }

    /// - Parameters:
    ///   - first: where the first service without an explicit handle goes.
    ///   - existing: ranges already in use (services published earlier).
    static func allocate(_ services: [ServiceDefinition], from first: UInt32 = 1,
                         around existing: [Taken] = []) throws(DatabaseError) -> [Attribute] {
        var out: [Attribute] = []
        var taken = TakenRanges(existing)
        var next = max(first, 1)
        var starts: [String: (start: AttributeHandle, end: AttributeHandle, uuid: BluetoothUUID)] = [:]
        var pendingIncludes: [(index: Int, id: String, path: String)] = []

        for (i, service) in services.enumerated() {
            let path = "services[\(i)]"
            guard (0...0xFFFF).contains(service.reservedHandles) else {
                throw .placement(path: path + ".reserved_handles", reason: "\(service.reservedHandles) is outside 0…65535")
            }
            var start: UInt32
            if let explicit = service.handle {
                guard explicit.isValid else { throw .placement(path: path + ".handle", reason: "handle 0x0000 is reserved") }
                start = UInt32(explicit.rawValue)
            } else {
                // The first gap after the previous service that holds the whole service.
                start = next
                let count = UInt32(min(service.handleCount, 0x10000))
                while let t = taken.firstOverlap(start...(start + count - 1)) { start = t.range.upperBound + 1 }
            }
            let end = try layoutEnd(service, at: start, path: path)
            let range = start...end
            if let t = taken.firstOverlap(range) {
                // Name the explicit handle that put the service there, if one did.
                let culprit = service.handle != nil ? path + ".handle"
                    : service.characteristics.indices.last { service.characteristics[$0].handle != nil }
                        .map { "\(path).characteristics[\($0)].handle" } ?? path
                throw .placement(path: culprit, reason: "\(span(range)) overlaps \(t.what)")
            }
            taken.insert(Taken(range: range, what: "\(path) (\(service.uuid) at \(span(range)))"))

            let groupEnd = AttributeHandle(UInt16(end))
            var h = start
            func take() -> AttributeHandle { defer { h += 1 }; return AttributeHandle(UInt16(h)) }
            out.append(Attribute(handle: take(),
                                 type: service.isPrimary ? GATTAttributeType.primaryService : GATTAttributeType.secondaryService,
                                 permissions: .readOnly, value: service.uuid.attForm.littleEndianBytes,
                                 groupEnd: groupEnd))
            if let id = service.id { starts[id] = (AttributeHandle(UInt16(start)), groupEnd, service.uuid) }
            for (k, id) in service.includes.enumerated() {
                pendingIncludes.append((out.count, id, "\(path).includes[\(k)]"))
                out.append(Attribute(handle: take(), type: GATTAttributeType.include, permissions: .readOnly))
            }
            for c in service.characteristics {
                if let explicit = c.handle { h = UInt32(explicit.rawValue) }
                let decl = take()
                let valueHandle = take()
                var declValue: [UInt8] = [c.properties.rawValue, UInt8(truncatingIfNeeded: valueHandle.rawValue),
                                          UInt8(truncatingIfNeeded: valueHandle.rawValue >> 8)]
                c.uuid.attForm.append(to: &declValue)
                out.append(Attribute(handle: decl, type: GATTAttributeType.characteristic, permissions: .readOnly,
                                     value: declValue))
                out.append(Attribute(handle: valueHandle, type: c.uuid, permissions: c.permissions, kind: c.kind,
                                     value: c.value, maximumLength: c.maximumLength))
                for d in c.descriptors {
                    out.append(Attribute(handle: take(), type: d.uuid, permissions: d.permissions, kind: d.kind,
                                         value: d.value, maximumLength: d.maximumLength))
                }
            }
            next = end + 1
        }
        for (index, id, path) in pendingIncludes {
            guard let target = starts[id] else {
                throw .placement(path: path, reason: "no service has the id \(DatabaseJSON.shown(id))")
            }
            var v: [UInt8] = []
            v.append(UInt8(truncatingIfNeeded: target.start.rawValue)); v.append(UInt8(truncatingIfNeeded: target.start.rawValue >> 8))
            v.append(UInt8(truncatingIfNeeded: target.end.rawValue)); v.append(UInt8(truncatingIfNeeded: target.end.rawValue >> 8))
            // Only 16-bit service UUIDs appear in the include value (Vol 3 Part G §3.2).
            if target.uuid.attForm.width == .bits16 { target.uuid.append(to: &v) }
            out[index].value = v
        }
        try checkIncludeCycles(services)
        return out
    }

    /// Refuses services that include themselves, directly or through others, naming the
    /// include that closes the cycle by its path and each service by path and id.
    static func checkIncludeCycles(_ services: [ServiceDefinition]) throws(DatabaseError) {
        var indexByID: [String: Int] = [:]
        for (i, s) in services.enumerated() { if let id = s.id { indexByID[id] = i } }
        let edges = services.map { s in s.includes.compactMap { indexByID[$0] } }
        guard let cycle = IncludeCycle.first(in: edges) else { return }
        let name = { (i: Int) in "services[\(i)]" + (services[i].id.map { " (id \(DatabaseJSON.shown($0)))" } ?? "") }
        let first = cycle[0], next = cycle.count > 1 ? cycle[1] : first
        let k = services[first].includes.firstIndex { indexByID[$0] == next } ?? 0
        let reason = cycle.count == 1 ? "\(name(first)) includes itself"
            : "services include one another in a cycle: " + IncludeCycle.describe(cycle.map(name))
        throw .placement(path: "services[\(first)].includes[\(k)]", reason: reason)
    }

    /// The last handle of `service` laid out from `start`: explicit characteristic handles
    /// move the layout forward (the service grows to hold them) but never back, and
    /// nothing may go past 0xFFFF.
    static func layoutEnd(_ service: ServiceDefinition, at start: UInt32, path: String) throws(DatabaseError) -> UInt32 {
        var h = start + 1 + UInt32(service.includes.count)
        for (j, c) in service.characteristics.enumerated() {
            if let explicit = c.handle {
                let e = UInt32(explicit.rawValue)
                guard e >= h else {
                    let before = j == 0 ? "the service declaration and its includes" : "characteristics[\(j - 1)]"
                    throw .placement(path: "\(path).characteristics[\(j)].handle",
                                     reason: "\(hex(e)) comes before \(hex(h)), the first handle after \(before); "
                                         + "a characteristic follows what comes before it in its service")
                }
                h = e
            }
            h += UInt32(c.handleCount)
            // Checked as it grows, so a huge service is refused without summing it all.
            guard h - 1 <= 0xFFFF else { throw outOfRoom(path, start) }
        }
        let end = UInt64(h) - 1 + UInt64(service.reservedHandles)
        guard end <= 0xFFFF else { throw outOfRoom(path, start) }
        return UInt32(end)
    }

    /// Disjoint taken ranges in handle order, searched by bisection: a database of
    /// thousands of services is placed in n log n, not n².
    struct TakenRanges {
        private var sorted: [Taken]

        init(_ ranges: [Taken]) { sorted = ranges.sorted { $0.range.lowerBound < $1.range.lowerBound } }

        /// The first range that ends at or after `handle`.
        private func index(endingAtOrAfter handle: UInt32) -> Int {
            var low = 0, high = sorted.count
            while low < high {
                let mid = (low + high) / 2
                if sorted[mid].range.upperBound < handle { low = mid + 1 } else { high = mid }
            }
            return low
        }

        func firstOverlap(_ r: ClosedRange<UInt32>) -> Taken? {
            let i = index(endingAtOrAfter: r.lowerBound)
            return i < sorted.count && sorted[i].range.lowerBound <= r.upperBound ? sorted[i] : nil
        }

        /// Adds a range that overlaps none already here.
        mutating func insert(_ t: Taken) { sorted.insert(t, at: index(endingAtOrAfter: t.range.lowerBound)) }
    }

    static func outOfRoom(_ path: String, _ start: UInt32) -> DatabaseError {
        start > 0xFFFF ? .placement(path: path, reason: "no handles left: the services before it end at 0xffff")
            : .placement(path: path, reason: "from \(hex(start)) it needs handles past 0xffff, the last there is")
    }

    static func hex(_ h: UInt32) -> String { "0x" + hexString(h, digits: 4) }

    static func span(_ r: ClosedRange<UInt32>) -> String { "\(hex(r.lowerBound))…\(hex(r.upperBound))" }
}
