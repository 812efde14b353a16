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

