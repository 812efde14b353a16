import ATT

/// The Database Hash of Vol 3 Part G §7.3: AES-CMAC with a zero key over the handle, type
/// and (for declarations and Extended Properties) value of every GATT-defined grouping
/// and descriptor attribute, in handle order, all little-endian.
public enum DatabaseHash {
    /// The bytes the hash is computed over.
    public static func message(_ attributes: [Attribute]) -> [UInt8] {
        var m: [UInt8] = []
        for a in attributes {
            guard let t = a.type.uint16, a.type.width == .bits16 || a.type.isBaseDerived else { continue }
            let includeValue: Bool
            switch t {
            case 0x2800, 0x2801, 0x2802, 0x2803, 0x2900: includeValue = true
            case 0x2901, 0x2902, 0x2903, 0x2904, 0x2905: includeValue = false
            default: continue
            }
            m.append(UInt8(truncatingIfNeeded: a.handle.rawValue))
            m.append(UInt8(truncatingIfNeeded: a.handle.rawValue >> 8))
            m.append(UInt8(truncatingIfNeeded: t))
            m.append(UInt8(truncatingIfNeeded: t >> 8))
            if includeValue { m += a.value }
        }
        return m
    }

    /// The hash as AES-CMAC returns it (most significant octet first, as the spec prints it).
    public static func cmac(_ attributes: [Attribute]) -> [UInt8] {
        (try? AESCMAC.mac(key: Array(repeating: 0, count: 16), message: message(attributes)))
            ?? Array(repeating: 0, count: 16)
    }

    /// The characteristic value as sent on the wire: the 128-bit hash, little-endian.
    public static func compute(_ attributes: [Attribute]) -> [UInt8] {
        cmac(attributes).reversed()
    }
}
