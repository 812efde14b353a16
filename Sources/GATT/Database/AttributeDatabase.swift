import ATT

/// The server's attribute table, sorted by handle, with the service and characteristic
/// grouping GATT derives from it and the Database Hash (Vol 3 Part G §7.3).
///
/// A value type: the server engine owns one and changes it only through its own API, so
/// every change can be announced with Service Changed.
public struct AttributeDatabase: Hashable, Sendable {
    /// All attributes, in handle order.
    public private(set) var attributes: [Attribute]
    /// The raw handles, parallel to ``attributes``, for a cache-friendly binary search.
    @usableFromInline private(set) var handles: [UInt16]
    /// Services in handle order.
    public private(set) var services: [ServiceRecord] = []
    /// Characteristics in handle order.
    public private(set) var characteristics: [CharacteristicRecord] = []
    /// The Database Hash as it goes on the wire (little-endian 128-bit value).
    public private(set) var hash: [UInt8] = Array(repeating: 0, count: 16)

    /// An empty database.
    public init() {
        attributes = []
        handles = []
    }

    /// A database of explicit attributes (any order; handles must be unique and non-zero).
    /// Service declarations without a ``Attribute/groupEnd`` end just before the next
    /// service declaration (or at the last attribute).
    public init(attributes: [Attribute]) throws(DatabaseError) {
        var sorted = attributes.sorted { $0.handle < $1.handle }
        var previous: UInt16 = 0
        for a in sorted {
            guard a.handle.isValid else { throw .zeroHandle }
            guard a.handle.rawValue != previous else { throw .duplicateHandle(a.handle) }
            guard a.value.count <= DatabaseError.maximumValueLength else { throw .valueOverLimit(a.handle, length: a.value.count) }
            guard (0...DatabaseError.maximumValueLength).contains(a.maximumLength) else {
                throw .maximumLengthOutOfRange(a.handle, a.maximumLength)
            }
            guard a.value.count <= max(a.maximumLength, 0) || a.kind != .stored else { throw .valueTooLong(a.handle) }
            previous = a.handle.rawValue
        }
        // Default group ends.
        for i in sorted.indices where sorted[i].isServiceDeclaration && sorted[i].groupEnd == nil {
            var end = sorted[i].handle
            var j = i + 1
            while j < sorted.count && !sorted[j].isServiceDeclaration {
                end = sorted[j].handle
                j += 1
            }
            sorted[i].groupEnd = end
        }
        if let cycle = IncludeCycle.first(in: sorted) { throw .includeCycle(cycle) }
        self.attributes = sorted
        self.handles = sorted.map(\.handle.rawValue)
        try rebuildIndexes()
    }

    /// Recomputes services, characteristics and the hash after the table changed.
    mutating func rebuildIndexes() throws(DatabaseError) {
        var services: [ServiceRecord] = []
        var characteristics: [CharacteristicRecord] = []
        var serviceEnd = AttributeHandle.max
        for (i, a) in attributes.enumerated() {
            if a.isServiceDeclaration {
                let end = a.groupEnd ?? a.handle
                serviceEnd = end
                services.append(ServiceRecord(uuid: BluetoothUUID(littleEndian: a.value[...]) ?? BluetoothUUID(0),
                                              isPrimary: a.type == GATTAttributeType.primaryService,
                                              range: AttributeHandleRange(start: a.handle, end: end)))
                continue
            }
            guard a.type == GATTAttributeType.characteristic else { continue }
            let v = a.value
            guard v.count == 5 || v.count == 19, let uuid = BluetoothUUID(littleEndian: v[3...]) else {
                throw .malformedDeclaration(a.handle)
            }
            let valueHandle = AttributeHandle(UInt16(v[1]) | UInt16(v[2]) << 8)
            // The characteristic ends before the next declaration of a characteristic or
            // service, or at the end of its service.
            var end = a.handle
            var j = i + 1
            while j < attributes.count {
                let b = attributes[j]
                if b.type == GATTAttributeType.characteristic || b.isServiceDeclaration
                    || b.type == GATTAttributeType.include || b.handle > serviceEnd { break }
                end = b.handle
                j += 1
            }
            if j == attributes.count || attributes[j].isServiceDeclaration {
                end = max(end, min(serviceEnd, AttributeHandle.max))
            } else if attributes[j].type == GATTAttributeType.characteristic {
                end = AttributeHandle(attributes[j].handle.rawValue - 1)
            }
            var record = CharacteristicRecord(uuid: uuid, declarationHandle: a.handle, valueHandle: valueHandle,
                                              endHandle: end, properties: CharacteristicProperties(rawValue: v[0]),
                                              extendedProperties: [], clientConfigurationHandle: nil)
            for k in (i + 1)..<j where attributes[k].handle > valueHandle {
                let d = attributes[k]
                if d.type == GATTAttributeType.clientCharacteristicConfiguration && record.clientConfigurationHandle == nil {
                    record.clientConfigurationHandle = d.handle
                } else if d.type == GATTAttributeType.characteristicExtendedProperties, d.value.count >= 2 {
                    record.extendedProperties = CharacteristicExtendedProperties(rawValue: UInt16(d.value[0]) | UInt16(d.value[1]) << 8)
                }
            }
            characteristics.append(record)
        }
        self.services = services
        self.characteristics = characteristics
        self.hash = DatabaseHash.compute(attributes)
    }

    // MARK: - Lookup

    /// The index of the attribute with `handle`.
    @inlinable
    public func index(of handle: AttributeHandle) -> Int? {
        let i = firstIndex(atOrAfter: handle)
        return i < handles.count && handles[i] == handle.rawValue ? i : nil
    }

    /// The index of the first attribute whose handle is ≥ `handle` (``attributes``'s
    /// count when there is none).
    @inlinable
    public func firstIndex(atOrAfter handle: AttributeHandle) -> Int {
        var low = 0
        var high = handles.count
        let h = handle.rawValue
        while low < high {
            let mid = (low &+ high) >> 1
            if handles[mid] < h { low = mid &+ 1 } else { high = mid }
        }
        return low
    }

    /// The attribute with `handle`.
    public subscript(handle: AttributeHandle) -> Attribute? {
        index(of: handle).map { attributes[$0] }
    }

    /// The characteristic whose declaration, value or descriptors include `handle`.
    public func characteristic(containing handle: AttributeHandle) -> CharacteristicRecord? {
        var low = 0
        var high = characteristics.count
        while low < high {
            let mid = (low + high) / 2
            if characteristics[mid].declarationHandle <= handle { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return nil }
        let c = characteristics[low - 1]
        return handle <= c.endHandle ? c : nil
    }

    /// The characteristic whose value handle is `handle`.
    public func characteristic(valueHandle handle: AttributeHandle) -> CharacteristicRecord? {
        guard let c = characteristic(containing: handle), c.valueHandle == handle else { return nil }
        return c
    }

    /// The first attribute of `type` (e.g. the Service Changed value), if any.
    public func first(ofType type: BluetoothUUID) -> Attribute? {
        attributes.first { $0.type == type }
    }

    // MARK: - Changes

    /// Replaces the stored value at `index` (no permission checks: the server checks).
    public mutating func setValue(_ value: [UInt8], at index: Int) {
        attributes[index].value = value
    }

    /// Replaces the stored value at `index` with bytes from a slice, reusing storage.
    public mutating func setValue(_ value: ArraySlice<UInt8>, at index: Int) {
        attributes[index].value.replaceSubrange(0..., with: value)
    }

    /// Adds attributes (for example a service built with ``ServiceDefinition``); returns
    /// the affected handle range for Service Changed.
    public mutating func insert(_ new: [Attribute]) throws(DatabaseError) -> AttributeHandleRange? {
        guard !new.isEmpty else { return nil }
        let merged = try AttributeDatabase(attributes: attributes + new)
        self = merged
        let lo = new.map(\.handle).min()!
        let hi = new.map { $0.groupEnd ?? $0.handle }.max()!
        return AttributeHandleRange(start: lo, end: hi)
    }

    /// Removes the service declared at `handle` with all its attributes; returns the
    /// affected range.
    public mutating func removeService(at handle: AttributeHandle) throws(DatabaseError) -> AttributeHandleRange? {
        guard let i = index(of: handle), attributes[i].isServiceDeclaration else { return nil }
        let range = AttributeHandleRange(start: handle, end: attributes[i].groupEnd ?? handle)
        let kept = attributes.filter { !range.contains($0.handle) }
        self = try AttributeDatabase(attributes: kept)
        return range
    }

    /// Builds a database from service definitions (automatic or explicit handles).
    public init(services definitions: [ServiceDefinition]) throws(DatabaseError) {
        try self.init(attributes: HandleAllocator.allocate(definitions))
    }

    /// The attributes of `definitions` placed around this database's services, ready for
    /// ``insert(_:)``: explicit handles are honoured wherever they are free (a
    /// ``DatabaseError/placement(path:reason:)`` names what is in the way otherwise), and
    /// services without one follow the last service already here.
    public func attributes(placing definitions: [ServiceDefinition]) throws(DatabaseError) -> [Attribute] {
        let last = attributes.map { UInt32(($0.groupEnd ?? $0.handle).rawValue) }.max() ?? 0
        let taken = services.map { s in
            HandleAllocator.Taken(range: UInt32(s.range.start.rawValue)...UInt32(s.range.end.rawValue),
                                  what: "service \(s.uuid) at \(s.range.start)…\(s.range.end), already published")
        }
        return try HandleAllocator.allocate(definitions, from: last + 1, around: taken)
    }

    /// Builds a database with the service DSL.
    public init(@ServiceBuilder _ build: () -> [ServiceDefinition]) throws(DatabaseError) {
        try self.init(services: build())
    }
}
