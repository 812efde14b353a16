import ATT

extension HandleValuePDU {
    public var fields: [(String, JSONValue)] {
        [("handle", .int(Int(handle.rawValue))), ("value", .string(hexString(value).replacingEmpty))]
    }
}

extension ValuePDU {
    public var fields: [(String, JSONValue)] { [("value", .string(hexString(value).replacingEmpty))] }
}

extension EmptyPDU {
    public var fields: [(String, JSONValue)] { [] }
}

extension HandleListPDU {
    public var fields: [(String, JSONValue)] { [("handles", .array(handles.map { .int(Int($0.rawValue)) }))] }
}

extension String {
    /// JSON carries empty values as "" rather than the human "(empty)".
    var replacingEmpty: String { self == "(empty)" ? "" : self }
}
