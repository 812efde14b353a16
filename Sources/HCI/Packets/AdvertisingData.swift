import BluetoothCore

/// Advertising or scan response data: a sequence of AD structures (Core Spec Vol 3 Part C
/// §11, types from the Assigned Numbers).
///
/// Decoding never fails as a whole. A structure whose content is wrong for its type fails
/// alone (its ``ADStructure/value`` is a failure); a length byte that runs past the end
/// stops the walk and is reported in ``framingError``, keeping every structure before it.
/// A zero length byte ends the significant part, as the spec says; the rest is padding.
public struct AdvertisingData: Hashable, Sendable {
    public var structures: [ADStructure]
    /// Where the structure framing broke, if it did.
    public var framingError: HCIDecodingError?

    public init(decoding bytes: ArraySlice<UInt8>) {
        structures = []
        framingError = nil
        var offset = 0
        let s = bytes.startIndex
        while offset < bytes.count {
            let length = Int(bytes[s + offset])
            if length == 0 { break }
            guard offset + 1 + length <= bytes.count else {
                framingError = HCIDecodingError(
                    .truncated(field: "AD structure", needed: length, available: bytes.count - offset - 1),
                    in: "Advertising Data", offset: offset)
                break
            }
            let type = ADType(bytes[s + offset + 1])
            structures.append(ADStructure(type: type, data: bytes[(s + offset + 2)..<(s + offset + 1 + length)],
                                          offset: offset))
            offset += 1 + length
        }
    }

    /// Every structure's value that decoded.
    public var values: [ADValue] {
        structures.compactMap { try? $0.value.get() }
    }

    /// The complete local name, else the shortened one.
    public var localName: String? {
        var shortened: String?
        for case let .localName(name, complete) in values {
            if complete { return name }
            shortened = shortened ?? name
        }
        return shortened
    }

    /// Service UUIDs from every list, in order.
    public var serviceUUIDs: [BluetoothUUID] {
        values.flatMap { value -> [BluetoothUUID] in
            if case let .serviceUUIDs(list, _) = value { return list }
            return []
        }
    }

    public var flags: UInt8? {
        for case let .flags(f) in values { return f }
        return nil
    }

    public var txPowerLevel: Int8? {
        for case let .txPowerLevel(p) in values { return p }
        return nil
    }

    public var appearance: UInt16? {
        for case let .appearance(a) in values { return a }
        return nil
    }

    public var manufacturerData: (companyID: UInt16, data: ArraySlice<UInt8>)? {
        for case let .manufacturerData(id, data) in values { return (id, data) }
        return nil
    }
}
