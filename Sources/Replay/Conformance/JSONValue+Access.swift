import ATT
import ATTPresentation
import Foundation
import GATT

extension JSONValue {
    /// Converts what `JSONSerialization` returns.
    public init(foundation value: Any) {
        // Foundation bridges JSON numbers to Bool too; only its boolean class is a Bool.
        if let b = value as? Bool, String(describing: type(of: value)).contains("Boolean") || type(of: value) == Bool.self {
            self = .bool(b)
            return
        }
        switch value {
        case let i as Int: self = .int(i)
        case let d as Double: self = .double(d)
        case let s as String: self = .string(s)
        case let a as [Any]: self = .array(a.map(JSONValue.init(foundation:)))
        case let o as [String: Any]: self = .object(o.keys.sorted().map { ($0, JSONValue(foundation: o[$0]!)) })
        default: self = .null
        }
    }

    /// The member `key` of an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    public var intValue: Int? { if case .int(let i) = self { i } else { nil } }
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
}
