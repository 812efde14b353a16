import BluetoothCore

/// One value in a decoded reading: the primary value or an extra named field.
public enum FieldValue: Hashable, Sendable {
    /// A number, printed without binary noise.
    case number(DecodedNumber)
    /// Text.
    case string(String)
    /// A boolean (binary sensors, sensor contact).
    case bool(Bool)
    /// A list, such as heart-rate RR intervals.
    case list([FieldValue])
    /// The peer reports the value as unknown (for example temperature 0x8000).
    case null

    /// An integer value.
    public static func integer<T: BinaryInteger>(_ value: T) -> FieldValue {
        if let exact = Int64(exactly: value) { return .number(DecodedNumber(exact)) }
        return .string(String(value))
    }

    /// The value as JSON text.
    public var json: String {
        var out = ""
        write(to: &out)
        return out
    }

    func write(to out: inout String) {
        switch self {
        case let .number(n): out += n.description
        case let .string(s): writeJSONString(s, to: &out)
        case let .bool(b): out += b ? "true" : "false"
        case .null: out += "null"
        case let .list(items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += ", " }
                item.write(to: &out)
            }
            out += "]"
        }
    }
}

/// A JSON string literal (``JSONString``), DEL and the line and paragraph separators
/// escaped too. Public for the gateway's payloads, which mix decoded values with their
/// own fields.
public func writeJSONString(_ s: String, to out: inout String) {
    JSONString.write(s, alsoEscaping: [.delete, .lineSeparators], to: &out)
}
