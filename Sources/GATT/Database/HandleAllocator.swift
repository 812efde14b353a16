import ATT

/// Turns service definitions into attributes: explicit handles are honoured, the rest are
/// allocated in order after the previous attribute.
enum HandleAllocator {
    static func allocate(_ services: [ServiceDefinition]) throws(DatabaseError) -> [Attribute] {
        var out: [Attribute] = []
        var used: [(AttributeHandleRange)] = []
        var next: UInt32 = 1
        var starts: [String: (start: AttributeHandle, end: AttributeHandle, uuid: BluetoothUUID)] = [:]
        var pendingIncludes: [(index: Int, id: String)] = []

        func overlaps(_ r: AttributeHandleRange) -> Bool {
            used.contains { $0.start <= r.end && r.start <= $0.end }
        }

        for service in services {
            let start = service.handle.map { UInt32($0.rawValue) } ?? next
            let count = UInt32(service.handleCount)
            guard start >= 1, start + count - 1 <= 0xFFFF else { throw .outOfHandles }
            let range = AttributeHandleRange(start: AttributeHandle(UInt16(start)),
                                             end: AttributeHandle(UInt16(start + count - 1)))
            guard !overlaps(range) else { throw .overlap(range.start) }
            var h = start
            var cursor: UInt32 { h }
            func take() -> AttributeHandle { defer { h += 1 }; return AttributeHandle(UInt16(h)) }

            out.append(Attribute(handle: take(),
                                 type: service.isPrimary ? GATTAttributeType.primaryService : GATTAttributeType.secondaryService,
                                 permissions: .readOnly, value: service.uuid.attForm.littleEndianBytes,
                                 groupEnd: range.end))
            if let id = service.id { starts[id] = (range.start, range.end, service.uuid) }
            for id in service.includes {
                pendingIncludes.append((out.count, id))
                out.append(Attribute(handle: take(), type: GATTAttributeType.include, permissions: .readOnly))
            }
            for c in service.characteristics {
                if let explicit = c.handle {
                    guard UInt32(explicit.rawValue) >= h, UInt32(explicit.rawValue) + UInt32(c.handleCount) - 1 <= range.end.rawValue
                    else { throw .overlap(explicit) }
                    h = UInt32(explicit.rawValue)
                }
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
            _ = cursor
            used.append(range)
            next = range.end.rawValue == 0xFFFF ? 0x10000 : UInt32(range.end.rawValue) + 1
        }
        for (index, id) in pendingIncludes {
            guard let target = starts[id] else { throw .unknownInclude(id) }
            var v: [UInt8] = []
            v.append(UInt8(truncatingIfNeeded: target.start.rawValue)); v.append(UInt8(truncatingIfNeeded: target.start.rawValue >> 8))
            v.append(UInt8(truncatingIfNeeded: target.end.rawValue)); v.append(UInt8(truncatingIfNeeded: target.end.rawValue >> 8))
            // Only 16-bit service UUIDs appear in the include value (Vol 3 Part G §3.2).
            if target.uuid.attForm.width == .bits16 { target.uuid.append(to: &v) }
            out[index].value = v
        }
        return out
    }
}
