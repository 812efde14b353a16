import BluetoothCore

/// One advertising data structure: a length byte, an AD type, then data
/// (Core Spec Vol 3 Part C §11).
public struct ADStructure: Hashable, Sendable {
    public var type: ADType
    /// The data after the type byte, sharing storage with the input.
    public var data: ArraySlice<UInt8>
    /// Offset of the structure's length byte in the advertising data.
    public var offset: Int

    public init(type: ADType, data: ArraySlice<UInt8>, offset: Int) {
        self.type = type
        self.data = data
        self.offset = offset
    }

    /// The data decoded by type. A malformed structure fails alone; its neighbours still decode.
    public var value: Result<ADValue, HCIDecodingError> {
        do throws(HCIDecodingError) {
            return .success(try decodeValue())
        } catch {
            return .failure(error)
        }
    }

    func fail(_ reason: HCIDecodingError.Reason) -> HCIDecodingError {
        HCIDecodingError(reason, in: "AD structure \(type)", offset: offset)
    }

    func uuids(width: Int) throws(HCIDecodingError) -> [BluetoothUUID] {
        guard data.count % width == 0 else {
            throw fail(.lengthMismatch(field: "UUID list", declared: data.count, actual: data.count - data.count % width))
        }
        var out: [BluetoothUUID] = []
        var i = data.startIndex
        while i < data.endIndex {
            out.append(BluetoothUUID(littleEndian: data[i..<(i + width)])!)
            i += width
        }
        return out
    }

    func exactly(_ count: Int, _ field: String) throws(HCIDecodingError) {
        guard data.count == count else { throw fail(.lengthMismatch(field: field, declared: count, actual: data.count)) }
    }

    func atLeast(_ count: Int, _ field: String) throws(HCIDecodingError) {
        guard data.count >= count else { throw fail(.truncated(field: field, needed: count, available: data.count)) }
    }

    func u16(_ at: Int) -> UInt16 { UInt16(data[data.startIndex + at]) | UInt16(data[data.startIndex + at + 1]) << 8 }

    func decodeValue() throws(HCIDecodingError) -> ADValue {
        switch type {
        case .flags:
            try atLeast(1, "flags")
            return .flags(data[data.startIndex])
        case .incompleteServiceUUIDs16, .completeServiceUUIDs16:
            return .serviceUUIDs(try uuids(width: 2), complete: type == .completeServiceUUIDs16)
        case .incompleteServiceUUIDs32, .completeServiceUUIDs32:
            return .serviceUUIDs(try uuids(width: 4), complete: type == .completeServiceUUIDs32)
        case .incompleteServiceUUIDs128, .completeServiceUUIDs128:
            return .serviceUUIDs(try uuids(width: 16), complete: type == .completeServiceUUIDs128)
        case .serviceSolicitationUUIDs16: return .serviceSolicitationUUIDs(try uuids(width: 2))
        case .serviceSolicitationUUIDs32: return .serviceSolicitationUUIDs(try uuids(width: 4))
        case .serviceSolicitationUUIDs128: return .serviceSolicitationUUIDs(try uuids(width: 16))
        case .shortenedLocalName, .completeLocalName:
            return .localName(String(decoding: data, as: UTF8.self), complete: type == .completeLocalName)
        case .txPowerLevel:
            try exactly(1, "TX power level")
            return .txPowerLevel(Int8(bitPattern: data[data.startIndex]))
        case .serviceData16, .serviceData32, .serviceData128:
            let width = type == .serviceData16 ? 2 : type == .serviceData32 ? 4 : 16
            try atLeast(width, "service data UUID")
            let s = data.startIndex
            return .serviceData(BluetoothUUID(littleEndian: data[s..<(s + width)])!, data[(s + width)...])
        case .appearance:
            try exactly(2, "appearance")
            return .appearance(u16(0))
        case .manufacturerSpecificData:
            try atLeast(2, "company identifier")
            return .manufacturerData(companyID: u16(0), data: data[(data.startIndex + 2)...])
        case .peripheralConnectionIntervalRange:
            try exactly(4, "connection interval range")
            return .peripheralConnectionIntervalRange(minimum: u16(0), maximum: u16(2))
        case .advertisingInterval:
            // 2 bytes, or 3 or 4 for the long advertising interval type (0x2F is separate).
            guard (2...4).contains(data.count) else {
                throw fail(.lengthMismatch(field: "advertising interval", declared: 2, actual: data.count))
            }
            var v: UInt32 = 0
            for (i, b) in data.enumerated() { v |= UInt32(b) << (8 * UInt32(i)) }
            return .advertisingInterval(v)
        case .publicTargetAddress, .randomTargetAddress:
            guard data.count % 6 == 0, !data.isEmpty else {
                throw fail(.lengthMismatch(field: "target addresses", declared: data.count, actual: data.count - data.count % 6))
            }
            var addresses: [BluetoothAddress] = []
            var i = data.startIndex
            while i < data.endIndex {
                addresses.append(BluetoothAddress(littleEndian: data[i..<(i + 6)])!)
                i += 6
            }
            return .targetAddresses(addresses, random: type == .randomTargetAddress)
        case .leBluetoothDeviceAddress:
            try exactly(7, "LE device address")
            let s = data.startIndex
            return .leBluetoothDeviceAddress(BluetoothAddress(littleEndian: data[s..<(s + 6)])!,
                                             random: data[s + 6] & 1 == 1)
        case .leRole:
            try exactly(1, "LE role")
            return .leRole(data[data.startIndex])
        case .uri:
            return .uri(String(decoding: data, as: UTF8.self))
        default:
            return .other(data)
        }
    }
}
