import ATT

/// Advertising or scan response data, split into AD structures and decoded by type
/// (Vol 3 Part C §11, Core Specification Supplement Part A).
///
/// Decoding fails softly, one structure at a time: a structure whose data has the wrong
/// size for its type is left out of the typed fields and reported in ``errors``; the
/// others still count. A length byte that runs past the end stops the walk, since no
/// later boundary can be trusted. A zero length byte ends the data (the rest is padding).
public struct AdvertisingData: Hashable, Sendable {
    /// Every structure, in order, including ones whose data did not decode.
    public private(set) var structures: [AdvertisingDataStructure] = []
    /// What did not decode, with offsets from the first byte of the data.
    public private(set) var errors: [HCIDecodingError] = []

    /// Flags (0x01): bit 0 LE Limited Discoverable, bit 1 LE General Discoverable,
    /// bit 2 BR/EDR Not Supported.
    public private(set) var flags: UInt8?
    public private(set) var completeLocalName: String?
    public private(set) var shortenedLocalName: String?
    /// Service UUIDs from the complete lists (0x03, 0x05, 0x07).
    public private(set) var completeServiceUUIDs: [BluetoothUUID] = []
    /// Service UUIDs from the incomplete lists (0x02, 0x04, 0x06).
    public private(set) var incompleteServiceUUIDs: [BluetoothUUID] = []
    /// Service solicitation UUIDs (0x14, 0x15, 0x1F).
    public private(set) var solicitedServiceUUIDs: [BluetoothUUID] = []
    /// Service data (0x16, 0x20, 0x21), in order of appearance.
    public private(set) var serviceData: [ServiceData] = []
    /// Manufacturer specific data (0xFF), in order of appearance.
    public private(set) var manufacturerData: [ManufacturerData] = []
    /// Tx Power Level (0x0A) in dBm.
    public private(set) var txPowerLevel: Int8?
    /// Appearance (0x19), the GAP Appearance value.
    public private(set) var appearance: UInt16?
    /// Advertising Interval (0x1A, 0x2F) in units of 0.625 ms.
    public private(set) var advertisingInterval: UInt32?
    /// Peripheral Connection Interval Range (0x12) in units of 1.25 ms; 0xFFFF means no
    /// specific value.
    public private(set) var connectionIntervalRange: ClosedRange<UInt16>?
    /// URI (0x24): the scheme name string code is expanded when it is a known one.
    public private(set) var uri: String?
    /// Broadcast Name (0x30).
    public private(set) var broadcastName: String?

    /// One Service Data structure.
    public struct ServiceData: Hashable, Sendable {
        public var uuid: BluetoothUUID
        public var data: [UInt8]
        public init(uuid: BluetoothUUID, data: [UInt8]) {
            self.uuid = uuid
            self.data = data
        }
    }

    /// One Manufacturer Specific Data structure.
    public struct ManufacturerData: Hashable, Sendable {
        /// The Bluetooth SIG company identifier (the first two data bytes, little-endian).
        public var companyIdentifier: UInt16
        public var data: [UInt8]
        public init(companyIdentifier: UInt16, data: [UInt8]) {
            self.companyIdentifier = companyIdentifier
            self.data = data
        }
    }

    /// The local name, complete if present, else shortened.
    public var localName: String? { completeLocalName ?? shortenedLocalName }

    /// Splits and decodes `bytes`.
    public init(_ bytes: ArraySlice<UInt8>) {
        let base = bytes.startIndex
        var index = base
        while index < bytes.endIndex {
            let length = Int(bytes[index])
            if length == 0 { break }
            guard length <= bytes.endIndex - index - 1 else {
                errors.append(HCIDecodingError(
                    .truncated(field: "AD structure", needed: length, available: bytes.endIndex - index - 1),
                    in: "Advertising Data", offset: index - base))
                break
            }
            let type = AdvertisingDataType(bytes[index + 1])
            let data = bytes[(index + 2)..<(index + 1 + length)]
            let structure = AdvertisingDataStructure(type: type, data: data, offset: index - base)
            structures.append(structure)
            if let reason = decode(structure) {
                errors.append(HCIDecodingError(reason, in: type.name ?? "AD structure", offset: index - base))
            }
            index += 1 + length
        }
    }

    /// Decodes `bytes`.
    public init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    /// Folds one structure into the typed fields; returns why it did not decode.
    private mutating func decode(_ s: AdvertisingDataStructure) -> HCIDecodingError.Reason? {
        let d = s.data
        func exact(_ n: Int) -> HCIDecodingError.Reason? {
            d.count == n ? nil : .lengthMismatch(field: "data", declared: n, actual: d.count)
        }
        switch s.type {
        case .flags:
            // Flags may grow in later versions; bits beyond the first octet are reserved.
            guard !d.isEmpty else { return .truncated(field: "flags", needed: 1, available: 0) }
            flags = d[d.startIndex]
        case .incompleteServiceUUIDs16, .incompleteServiceUUIDs32, .incompleteServiceUUIDs128:
            guard let list = Self.uuidList(d, width: Self.width(of: s.type)) else { return badList(d, s.type) }
            incompleteServiceUUIDs += list
        case .completeServiceUUIDs16, .completeServiceUUIDs32, .completeServiceUUIDs128:
            guard let list = Self.uuidList(d, width: Self.width(of: s.type)) else { return badList(d, s.type) }
            completeServiceUUIDs += list
        case .serviceSolicitationUUIDs16, .serviceSolicitationUUIDs32, .serviceSolicitationUUIDs128:
            guard let list = Self.uuidList(d, width: Self.width(of: s.type)) else { return badList(d, s.type) }
            solicitedServiceUUIDs += list
        case .shortenedLocalName:
            shortenedLocalName = String(decoding: d, as: UTF8.self)
        case .completeLocalName:
            completeLocalName = String(decoding: d, as: UTF8.self)
        case .broadcastName:
            broadcastName = String(decoding: d, as: UTF8.self)
        case .txPowerLevel:
            if let e = exact(1) { return e }
            txPowerLevel = Int8(bitPattern: d[d.startIndex])
        case .appearance:
            if let e = exact(2) { return e }
            appearance = Self.uint16(d, at: 0)
        case .advertisingInterval:
            if let e = exact(2) { return e }
            advertisingInterval = UInt32(Self.uint16(d, at: 0))
        case .advertisingIntervalLong:
            guard d.count == 3 || d.count == 4 else {
                return .lengthMismatch(field: "data", declared: 3, actual: d.count)
            }
            var v: UInt32 = 0
            for (i, b) in d.enumerated() { v |= UInt32(b) << (8 * UInt32(i)) }
            advertisingInterval = v
        case .peripheralConnectionIntervalRange:
            if let e = exact(4) { return e }
            let lo = Self.uint16(d, at: 0), hi = Self.uint16(d, at: 2)
            // 0xFFFF on either side means "no specific value", so only order real bounds.
            guard lo == 0xFFFF || hi == 0xFFFF || lo <= hi else {
                return .invalidValue(field: "connection interval range", value: Int(lo))
            }
            connectionIntervalRange = min(lo, hi)...max(lo, hi)
        case .serviceData16, .serviceData32, .serviceData128:
            let n = Self.width(of: s.type)
            guard d.count >= n, let uuid = BluetoothUUID(littleEndian: d.prefix(n)) else {
                return .truncated(field: "service UUID", needed: n, available: d.count)
            }
            serviceData.append(ServiceData(uuid: uuid, data: Array(d.dropFirst(n))))
        case .manufacturerSpecificData:
            guard d.count >= 2 else { return .truncated(field: "company identifier", needed: 2, available: d.count) }
            manufacturerData.append(ManufacturerData(companyIdentifier: Self.uint16(d, at: 0),
                                                     data: Array(d.dropFirst(2))))
        case .uri:
            guard !d.isEmpty else { return .truncated(field: "URI", needed: 1, available: 0) }
            uri = Self.decodeURI(d)
        default:
            break
        }
        return nil
    }

    private func badList(_ d: ArraySlice<UInt8>, _ type: AdvertisingDataType) -> HCIDecodingError.Reason {
        let n = Self.width(of: type)
        return .lengthMismatch(field: "UUID list", declared: (d.count / n + 1) * n, actual: d.count)
    }

    private static func width(of type: AdvertisingDataType) -> Int {
        switch type {
        case .incompleteServiceUUIDs16, .completeServiceUUIDs16, .serviceSolicitationUUIDs16, .serviceData16: 2
        case .incompleteServiceUUIDs32, .completeServiceUUIDs32, .serviceSolicitationUUIDs32, .serviceData32: 4
        default: 16
        }
    }

    private static func uuidList(_ d: ArraySlice<UInt8>, width: Int) -> [BluetoothUUID]? {
        guard d.count % width == 0 else { return nil }
        var out: [BluetoothUUID] = []
        out.reserveCapacity(d.count / width)
        var i = d.startIndex
        while i < d.endIndex {
            guard let uuid = BluetoothUUID(littleEndian: d[i..<(i + width)]) else { return nil }
            out.append(uuid)
            i += width
        }
        return out
    }

    private static func uint16(_ d: ArraySlice<UInt8>, at offset: Int) -> UInt16 {
        UInt16(d[d.startIndex + offset]) | UInt16(d[d.startIndex + offset + 1]) << 8
    }

    /// The first byte is a code from the URI scheme name string table (Assigned Numbers
    /// §2.7); 0x01 means the scheme is spelled out in the rest.
    private static func decodeURI(_ d: ArraySlice<UInt8>) -> String {
        let rest = String(decoding: d.dropFirst(), as: UTF8.self)
        switch d[d.startIndex] {
        case 0x16: return "http:" + rest
        case 0x17: return "https:" + rest
        default: return rest
        }
    }
}
