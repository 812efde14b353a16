import Foundation

/// A parsed JSON document, for reading the conformance fixture files.
indirect enum ConformanceJSON: Sendable {
    case null, bool(Bool), number(Double), string(String), array([ConformanceJSON]), object([String: ConformanceJSON])

    init(parsing data: Data) throws {
        self = ConformanceJSON(any: try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
    }

    init(any value: Any) {
        switch value {
        case let v as NSNumber:
            // JSONSerialization gives booleans as NSNumber too; tell them apart by type.
            if String(cString: v.objCType) == "c" { self = .bool(v.boolValue) } else { self = .number(v.doubleValue) }
        case let v as String: self = .string(v)
        case let v as [Any]: self = .array(v.map(ConformanceJSON.init(any:)))
        case let v as [String: Any]: self = .object(v.mapValues(ConformanceJSON.init(any:)))
        default: self = .null
        }
    }

    subscript(key: String) -> ConformanceJSON? {
        if case let .object(o) = self { return o[key] }
        return nil
    }

    var string: String? { if case let .string(s) = self { return s }; return nil }
    var int: Int? { if case let .number(n) = self { return Int(n) }; return nil }
    var bool: Bool? { if case let .bool(b) = self { return b }; return nil }
    var array: [ConformanceJSON] { if case let .array(a) = self { return a }; return [] }
    var object: [String: ConformanceJSON] { if case let .object(o) = self { return o }; return [:] }
}

/// "0a0b" → [0x0a, 0x0b]; nil for odd lengths or non-hex digits.
func bytes(fromHex hex: String) -> [UInt8]? {
    var out: [UInt8] = []
    out.reserveCapacity(hex.utf8.count / 2)
    var high: UInt8?
    for c in hex.utf8 {
        let v: UInt8
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c - UInt8(ascii: "A") + 10
        default: return nil
        }
        if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
    }
    return high == nil ? out : nil
}
